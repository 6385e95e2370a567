"""Boxed In as one package (``boxedin``): the product (engine, ai, stats, matchmaker, gateway, lan,
common and the generated v1), and beside it the tools and the supervisor, which it never imports."""
