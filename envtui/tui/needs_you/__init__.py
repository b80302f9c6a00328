"""What waits for the person: the needs-you panel (:mod:`.panel`) and the keys that answer
it (:mod:`.keys`)."""
