"""ICML 2025 reproducibility book."""
