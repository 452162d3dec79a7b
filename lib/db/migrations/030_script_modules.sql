-- Scripts compiled as ES modules (switchyard compile): the modules they share (zod, the SDK runtime,
-- an integration's models) are stored once by the sha256 of their code, and each script version
-- names the ones it imports by path. Scripts uploaded as one IIFE bundle keep both columns null.
CREATE TABLE script_modules (
  sha256 text PRIMARY KEY,
  code text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE deployed_scripts ADD COLUMN entry_path text, ADD COLUMN modules jsonb;
