// The largest top-level communities: what "the main themes" of a collection are made of.
MATCH (co:Community {level: 0})
RETURN co.id AS id
ORDER BY co.size DESC, co.id
LIMIT $limit
