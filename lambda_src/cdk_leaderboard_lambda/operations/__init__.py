"""What a handler calls: one use case each, deciding with the domain."""
