// Episodes per summary status, and the chunks they cover (for reports and doctor).
MATCH (e:Episode)
RETURN e.summary_status AS summary_status, count(e) AS episodes,
       sum(e.chunk_count) AS chunks
ORDER BY summary_status
