-- A Cursor agent chat's store.db: table meta, row "0" the hex of a JSON
-- object (yashas-salankimatt/sidecar docs/plans/cursor-cli-adapter.md;
-- cursor-agent itself is closed source). Its name starts as "New Agent".
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
INSERT INTO meta VALUES ('0', '7b226167656e744964223a2261312d6232222c226e616d65223a224e6577204167656e74222c226d6f6465223a226167656e74222c22637265617465644174223a313739333631303030303030307d');
