"""The use cases: they depend on ports and the domain, never on adapters."""
