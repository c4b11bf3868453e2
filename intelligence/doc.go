// Package intelligence is what a model is told and how its answers are
// read: which checkpoints and turns a send gives the model (the context
// modes) and the chat prompt; the draft, extract, review and title prompts
// with their JSON schemas; tolerant parsers and poison checks; the
// intelligence service that drafts and reviews; and the contract every
// provider adapter meets (Provider, Completion, token estimates). It
// imports the domain only — never a provider, the store or HTTP.
package intelligence
