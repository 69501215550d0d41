"""Waschbär-Schmaus for learning code: its tensors, episode and batched engine."""
