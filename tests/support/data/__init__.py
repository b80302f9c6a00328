"""Inputs for the tests and how they are made: rollouts, sessions trees, vector inputs,
mutations, hostile text, config files."""
