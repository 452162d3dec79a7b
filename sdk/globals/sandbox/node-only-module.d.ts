// What `soap`, `unzipper` and `botbuilder` resolve to in switchyard compile's type-check: nothing,
// so their own packages (and the Node types they reference) stay out; index.d.ts types them.
export {};
