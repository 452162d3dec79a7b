/**
 * @module worker/malloc — the worker's native heap, bounded. glibc gives each thread that allocates
 * its own malloc arena (up to 8 per core), and a worker process has many: Temporal core's runtime
 * threads, libuv's pool, V8's platform threads and one workflow thread per environment. Under 1,000
 * one-minute schedules the worker's memory outside every V8 heap grew from about 200 MB to 310 MB,
 * most of it in about a dozen arenas that each kept freed memory (bench/RESULTS.md, issue 32). Two
 * arenas hold the same allocations with less kept back. glibc reads the variable when the process
 * starts, so it is set where the process is launched: the image (Dockerfile), the bench's worker;
 * `npm run worker` on a Linux host takes it from the environment (docs/operations.md).
 */
export const WORKER_MALLOC_ENV = { MALLOC_ARENA_MAX: '2' } as const;
