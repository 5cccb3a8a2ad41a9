package pdf

// Limits bounds what documents may cost inside the engine.
type Limits struct {
	// MemoryBytes caps MuPDF's allocations in the process (a worker: every document it has open); a page that needs
	// more fails with an error instead of exhausting the machine. 0 means DefaultMemoryBytes.
	MemoryBytes int64
	// StoreBytes is MuPDF's resource cache (fonts, decoded images, colour transforms), shared by the documents of a
	// process; the first document opened sets it. 0 means DefaultStoreBytes.
	StoreBytes int64
	// MaxPixels caps the pixel count of any one render; larger requests are rendered at a lower DPI.
	// 0 means DefaultMaxPixels.
	MaxPixels int
}

// Defaults for Limits.
const (
	DefaultMemoryBytes = 1 << 30
	DefaultStoreBytes  = 64 << 20
	DefaultMaxPixels   = 40_000_000
)

func (l Limits) withDefaults() Limits {
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.StoreBytes <= 0 {
		l.StoreBytes = DefaultStoreBytes
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	return l
}
