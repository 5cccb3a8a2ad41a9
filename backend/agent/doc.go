// Package agent runs the visual RAG loops (vrag, vimrag, vanilla, react) over a model and a knowledge base, and streams their steps as Events.
package agent
