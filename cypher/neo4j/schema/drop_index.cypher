// Drop one GraphMind index (wipe).
DROP INDEX {{index}} IF EXISTS
