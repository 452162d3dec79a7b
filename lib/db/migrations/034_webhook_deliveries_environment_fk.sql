-- A delivery's environment is its event's (events.environment_id, ON DELETE CASCADE), and deleting
-- an event deletes its deliveries (event_id, ON DELETE CASCADE): deleting an environment already
-- removes them. The direct foreign key only cost every delivery insert a referential check and a
-- share lock on the environment's row, which every concurrent emit of the environment takes.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_environment_id_fkey;
