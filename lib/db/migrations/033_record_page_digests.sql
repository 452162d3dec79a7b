-- What a sync run saved, page by page (features/records/page-digests.ts): the digest of a page as
-- the script handed it to batchSave, the model's schema it was validated with, and the digest of the
-- stored hashes of its records once saved. A later run handed the same page under the same schema,
-- whose records still have those stored hashes, notes them as seen and unchanged without validating,
-- serialising or hashing each one again. A successful run keeps only the digests of its own pages.
CREATE TABLE record_page_digests (
  connection_pk int NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  model         text NOT NULL,
  page_hash     text NOT NULL,
  schema_hash   text NOT NULL,
  content_hash  text NOT NULL,
  run_id        text NOT NULL,
  PRIMARY KEY (connection_pk, model, page_hash)
);

-- What a sync run's deletion detection looks at, by model as stored (features/records/delete-scope.ts):
-- {"after": cursor, "ids": [...]}, noted when its script ends; a model without one is looked at whole.
ALTER TABLE sync_runs ADD COLUMN delete_scopes jsonb NOT NULL DEFAULT '{}';
