"""What several test modules share: fixture corpora, scripted responders, runners."""
