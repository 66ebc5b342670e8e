// Drop one GraphMind constraint (wipe).
DROP CONSTRAINT {{index}} IF EXISTS
