"""What every Boxed In service shares: settings, logs, metrics, gRPC plumbing, Redis."""
