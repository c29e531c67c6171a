"""Project tooling that is not part of the engine: building the book."""
