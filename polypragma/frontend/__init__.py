"""Frontend: preprocess and parse C, and extract the polyhedral model of each region."""
