// Every constraint and its state.
CALL db.constraints() YIELD type, label, properties, status
RETURN type, label, properties, status
