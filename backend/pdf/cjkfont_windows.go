package pdf

// cjkFontFiles are the CJK fonts Windows installs: Microsoft YaHei (simplified Chinese, with traditional, kana and
// Hangul glyphs), then SimSun, MS Gothic and Malgun Gothic.
var cjkFontFiles = []cjkFontFile{
	{path: `C:\Windows\Fonts\msyh.ttc`},
	{path: `C:\Windows\Fonts\simsun.ttc`},
	{path: `C:\Windows\Fonts\msgothic.ttc`},
	{path: `C:\Windows\Fonts\malgun.ttf`},
}
