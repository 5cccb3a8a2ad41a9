//go:build !linux && !windows

package pdf

// cjkFontFiles are macOS's CJK fonts (PingFang's collection, then Hiragino); elsewhere none is known.
var cjkFontFiles = []cjkFontFile{
	{path: "/System/Library/Fonts/PingFang.ttc"},
	{path: "/System/Library/Fonts/Hiragino Sans GB.ttc"},
}
