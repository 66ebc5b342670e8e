// Version of the Graph Data Science plugin (fails when the plugin is absent).
RETURN gds.version() AS version
