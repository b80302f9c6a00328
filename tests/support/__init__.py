"""What the unit and integration tests share: fakes, scripted streams, servers and waiting."""
