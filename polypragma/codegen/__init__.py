"""Code generation: isl AST construction and the printers of each target."""
