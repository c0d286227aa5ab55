"""Neural-network ATen ops that stay whole after the core-ATen decompositions."""
