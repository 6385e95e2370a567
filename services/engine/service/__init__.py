"""The engine service: gRPC over the rules engine, every game kept in Redis."""
