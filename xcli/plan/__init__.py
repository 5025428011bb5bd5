"""Plans and steps: pure values, built with no network and no credentials."""
