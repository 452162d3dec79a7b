/**
 * @module http/streamed-body — an undici dispatch handler that gives a response's status and headers
 * as soon as they arrive and its body to one consumer: written straight into a writable (the proxy's
 * node response), read as a node `Readable`, or dropped. Skips undici's body `Readable` and its
 * ticks when the body goes straight to a writable; backpressure pauses the upstream socket.
 */
import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { errors } from 'undici';

/** What a body can be written into (a node `ServerResponse`, any `Writable`). */
export interface BodySink {
  write(chunk: Buffer): boolean;
  end(): void;
  destroy(): void;
  on(event: 'drain', listener: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
}

/** A response body not read yet; its consumer must call exactly one of these. */
export interface ResponseBody {
  /** Writes the body into `sink` with backpressure and ends it; a failed body destroys it, a sink closed early stops the download. */
  pipeTo(sink: BodySink): void;
  /** The body as a node stream. */
  readable(): Readable;
  /** Drops the body and closes its download. */
  discard(): void;
}

export interface ResponseStart {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

/** An abort signal as undici's own request API accepts it: an AbortSignal or an emitter of `abort`. */
type Signal = AbortSignal | (EventEmitter & { readonly aborted: boolean; readonly reason: unknown });

/** Chunks kept before the consumer attaches; past this the upstream socket is paused. */
const HELD_BYTES = 64 * 1024;

type Consumer = { kind: 'none' } | { kind: 'sink'; sink: BodySink } | { kind: 'readable'; stream: Readable } | { kind: 'discarded' };

function noop(): void {}

/** Made here, not as a class field: tsx names each arrow bound to a name, per instance (`__name`). */
function abortListener(body: StreamedBody): () => void {
  return () => body.abortBeforeResponse();
}

export class StreamedBody implements Dispatcher.DispatchHandler, ResponseBody {
  /** Settles when the status and headers arrive, or with the error that came first. */
  readonly started: Promise<ResponseStart>;
  #resolve!: (start: ResponseStart) => void;
  #reject!: (err: unknown) => void;
  #controller: Dispatcher.DispatchController | null = null;
  #signal: Signal | null;
  #onAbort: (() => void) | null = null;
  /** The request body, destroyed when the call fails before it is sent (as undici's request API does). */
  #requestBody: Readable | null;
  #responded = false;
  #ended = false;
  #error: unknown = null;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #consumer: Consumer = { kind: 'none' };

  constructor(signal: Signal | null, requestBody: unknown) {
    this.started = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#signal = signal;
    this.#requestBody = requestBody instanceof Readable ? requestBody : null;
    if (signal && !signal.aborted) {
      this.#onAbort = abortListener(this);
      if ('addEventListener' in signal) signal.addEventListener('abort', this.#onAbort, { once: true });
      else signal.once('abort', this.#onAbort);
    }
  }

  /** Stops the call while its answer has not started. */
  abortBeforeResponse(): void {
    if (this.#responded) return;
    this.#controller?.abort(this.#abortReason());
  }

  /** The signal's reason, passed on as it is (as undici's request API does). */
  #abortReason(): Error {
    return (this.#signal?.reason as Error | undefined) ?? new errors.RequestAbortedError();
  }

  #forgetSignal(): void {
    const signal = this.#signal;
    if (!signal) return;
    this.#signal = null;
    if ('removeEventListener' in signal && this.#onAbort) signal.removeEventListener('abort', this.#onAbort);
    // An emitter of `abort` is the caller's, made per call: its listener goes with it.
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal?.aborted) controller.abort(this.#abortReason());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    this.#responded = true;
    this.#forgetSignal();
    this.#resolve({ statusCode, headers });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const consumer = this.#consumer;
    switch (consumer.kind) {
      case 'sink':
        if (!consumer.sink.write(chunk)) controller.pause();
        return;
      case 'readable':
        if (!consumer.stream.push(chunk)) controller.pause();
        return;
      case 'none':
        this.#held.push(chunk);
        this.#heldBytes += chunk.length;
        if (this.#heldBytes >= HELD_BYTES) controller.pause();
        return;
      case 'discarded':
        return;
    }
  }

  onResponseEnd(): void {
    this.#ended = true;
    const consumer = this.#consumer;
    if (consumer.kind === 'sink') consumer.sink.end();
    else if (consumer.kind === 'readable') consumer.stream.push(null);
  }

  onResponseError(controller: Dispatcher.DispatchController | null, err: Error): void {
    this.#forgetSignal();
    if (this.#requestBody && !this.#requestBody.destroyed) {
      this.#requestBody.on('error', noop);
      this.#requestBody.destroy(err);
    }
    if (!this.#responded) return this.#reject(err);
    this.#error = err;
    const consumer = this.#consumer;
    if (consumer.kind === 'sink') consumer.sink.destroy();
    else if (consumer.kind === 'readable') consumer.stream.destroy(err);
  }

  pipeTo(sink: BodySink): void {
    if (!this.#untaken()) throw new Error('the response body has already been taken');
    if (sink.destroyed) return this.discard();
    this.#consumer = { kind: 'sink', sink };
    sink.once('close', () => {
      if (!sink.writableFinished) this.discard();
    });
    sink.on('drain', () => {
      if (!this.#ended && this.#consumer.kind === 'sink') this.#controller?.resume();
    });
    let room = true;
    for (const chunk of this.#release()) room = sink.write(chunk) && room;
    if (this.#error !== null) return sink.destroy();
    if (this.#ended) return sink.end();
    if (room) this.#controller?.resume();
    else this.#controller?.pause();
  }

  readable(): Readable {
    if (!this.#untaken()) throw new Error('the response body has already been taken');
    const stream = new Readable({
      read: () => this.#controller?.resume(),
      destroy: (err, callback) => {
        if (!this.#ended && this.#error === null) this.discard();
        callback(err);
      },
    });
    this.#consumer = { kind: 'readable', stream };
    for (const chunk of this.#release()) stream.push(chunk);
    if (this.#error !== null) stream.destroy(this.#error as Error);
    else if (this.#ended) stream.push(null);
    return stream;
  }

  discard(): void {
    if (this.#consumer.kind === 'discarded') return;
    this.#consumer = { kind: 'discarded' };
    this.#held = [];
    this.#heldBytes = 0;
    if (!this.#ended && this.#error === null) this.#controller?.abort(new errors.RequestAbortedError());
  }

  #untaken(): boolean {
    return this.#consumer.kind === 'none';
  }

  #release(): Buffer[] {
    const held = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    return held;
  }
}
