"""The REST payloads the sandbox answers with, built as GitHub builds them."""
