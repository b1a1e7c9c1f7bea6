"""HTTP: an event becomes a call and an answer a response; validation, the route table, the OpenAPI document."""
