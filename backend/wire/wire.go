// Package wire names the events the Go backend sends to the window; backend/desktop's generator writes them, with their payload types, into TypeScript (go generate ./backend/desktop).
package wire

// The events of the window's bus (Wails EventsEmit/EventsOn). Every name here must be given its payload type in
// backend/desktop/internal/gents, which writes them, with those types, to frontend/src/lib/generated/events.ts.
const (
	// EventAgent carries each agent.Event of a run the window started (Ask), as it happens.
	EventAgent = "agent:event"
	// EventIngest carries the ingest.Progress of each document being added, retried, resumed or re-embedded.
	EventIngest = "ingest:progress"
	// EventPull carries the progress of an Ollama model pull (PullModel).
	EventPull = "models:pull"
	// EventWatch carries a watched folder's watch.Status whenever it changes.
	EventWatch = "watch:status"
	// EventEval carries the state of the evaluation running in the window.
	EventEval = "eval:progress"
	// EventCompare carries the state of the comparison running in the window (its table so far).
	EventCompare = "compare:progress"
	// EventOpenFiles says, with no payload, that files wait in OpenFiles to be added to the current collection.
	EventOpenFiles = "open:files"
)
