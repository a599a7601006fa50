"""What docform does with text and values that come from outside it (the service's answers,
URLs, manifests written by others): secrets kept out of output, letters that pass for others,
nesting bounded, ids kept to one path segment."""
