"""The numpy reference interpreter (the project's oracle)."""
