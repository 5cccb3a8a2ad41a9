package desktop

// The window's TypeScript contract (frontend/src/lib/generated): the types of these services' methods, backend/wire's
// events and a typed call for each bound method, written by internal/gents; a test there fails when it is stale.
//go:generate go run ./internal/gents
