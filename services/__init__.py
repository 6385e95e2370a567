"""Boxed In: the engine, the AI and the services, as one package (``boxedin``)."""
