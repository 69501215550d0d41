"""Scout for learning code: its learning ids, tensors, episode and batched engine."""
