package pdf

// cjkFontFiles are Debian's CJK fonts, the most complete first: Noto Sans CJK (fonts-noto-cjk; a collection whose
// faces are JP, KR, SC, TC, HK), WenQuanYi (fonts-wqy-zenhei, fonts-wqy-microhei) and Droid Sans Fallback
// (fonts-droid-fallback), which have one face for all.
var cjkFontFiles = []cjkFontFile{
	{path: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", tc: 3, sc: 2, jp: 0, kr: 1},
	{path: "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", tc: 3, sc: 2, jp: 0, kr: 1},
	{path: "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"},
	{path: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"},
	{path: "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"},
}
