"""The fake's REST routes, one module a resource."""
