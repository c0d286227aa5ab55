"""Inputs and outputs: .npy/.npz, bf16/f8 void bytes, HLO literals."""
