"""The printer: a tensor as rich renderables, plain text, HTML, or the seeds' separators text."""
