"""Packaging glue: the grammar lives in top-level grammar/ but ships as hlotools.grammar."""
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["hlotools", "hlotools.*"]) + ["hlotools.grammar"],
    package_dir={"hlotools.grammar": "grammar"},
)
