#!/usr/bin/env python3
"""Writes the small documents of every format ingest reads beside this script (see README.md).

Each file holds one made-up word no other file has (its marker, e.g. "wombatdocx"), so a test can search for it and
expect its document first. Run from anywhere: python3 make.py [SHARED_TESTDATA]
"""
import glob
import os
import subprocess
import sys
import zipfile
from email import policy
from email.message import EmailMessage
from email.mime.text import MIMEText
from email.mime.multipart import MIMEMultipart

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, *[".."] * 5, "shared", "testdata")
FIXED = (2024, 1, 2, 3, 4, 5)  # every zip entry's date, so the files are the same on every run


def write_zip(name, entries, stored_first=None):
    with zipfile.ZipFile(os.path.join(HERE, name), "w", zipfile.ZIP_DEFLATED) as z:
        if stored_first:
            info = zipfile.ZipInfo(stored_first[0], FIXED)
            info.compress_type = zipfile.ZIP_STORED
            z.writestr(info, stored_first[1])
        for path, data in entries:
            info = zipfile.ZipInfo(path, FIXED)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def write(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
DOCREL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx_parts():
    def para(text, style=None):
        ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        return f"<w:p>{ppr}<w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"

    rows = [["Region", "Apples", "Pears"], ["North", "12", "7"], ["South", "30", "wombatcell"]]
    table = "<w:tbl><w:tblPr><w:tblStyle w:val=\"TableGrid\"/></w:tblPr><w:tblGrid>" + "<w:gridCol w:w=\"2000\"/>" * 3 + "</w:tblGrid>"
    for r in rows:
        table += "<w:tr>" + "".join(f"<w:tc><w:tcPr><w:tcW w:w=\"2000\" w:type=\"dxa\"/></w:tcPr>{para(c)}</w:tc>" for c in r) + "</w:tr>"
    table += "</w:tbl>"
    body = para("Harvest report", "Heading1") + para("The wombatdocx orchard had a good year for apples and pears.") + table
    document = XML + f'<w:document xmlns:w="{W}"><w:body>{body}<w:sectPr/></w:body></w:document>'
    styles = XML + f'''<w:styles xmlns:w="{W}"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>
<w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="40"/></w:rPr></w:style></w:styles>'''
    types = XML + '''<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
</Types>'''
    rels = XML + f'<Relationships xmlns="{RELS}"><Relationship Id="rId1" Type="{DOCREL}/officeDocument" Target="word/document.xml"/></Relationships>'
    docrels = XML + f'<Relationships xmlns="{RELS}"><Relationship Id="rId1" Type="{DOCREL}/styles" Target="styles.xml"/></Relationships>'
    return [("[Content_Types].xml", types), ("_rels/.rels", rels), ("word/document.xml", document),
            ("word/_rels/document.xml.rels", docrels), ("word/styles.xml", styles)]


def xlsx_parts():
    strings = ["Item", "Count", "wombatxlsx", "bolts", "Quarter", "Revenue", "spring", "autumn"]
    sheets = [
        [["Item", "Count"], ["wombatxlsx", 14], ["bolts", 250]],
        [["Quarter", "Revenue"], ["spring", 1200.5], ["autumn", 980]],
        # A ledger long enough to fill several pages: a sheet laid out as a series of pages.
        [["Month", "Depot", "Units", "Revenue"]] + [
            [f"{2020 + i // 12}-{i % 12 + 1:02d}", ["Leeds", "Derby", "Bath"][i % 3] + " depot", (i * 37) % 500 + 10,
             ((i * 37) % 500 + 10) * 12.5] for i in range(150)],
    ]

    def cell(ref, v):
        if isinstance(v, str) and v not in strings:
            return f'<c r="{ref}" t="inlineStr"><is><t>{v}</t></is></c>'
        if isinstance(v, str):
            return f'<c r="{ref}" t="s"><v>{strings.index(v)}</v></c>'
        return f'<c r="{ref}"><v>{v}</v></c>'

    parts = []
    for i, rows in enumerate(sheets, 1):
        data = "".join(f'<row r="{r}">' + "".join(cell("ABCD"[c] + str(r), v) for c, v in enumerate(row)) + "</row>"
                       for r, row in enumerate(rows, 1))
        parts.append((f"xl/worksheets/sheet{i}.xml", XML + '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                      f"<sheetData>{data}</sheetData></worksheet>"))
    sst = "".join(f"<si><t>{s}</t></si>" for s in strings)
    parts.append(("xl/sharedStrings.xml", XML + f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(strings)}" uniqueCount="{len(strings)}">{sst}</sst>'))
    parts.append(("xl/workbook.xml", XML + f'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="{DOCREL}"><sheets>'
                  '<sheet name="Stock" sheetId="1" r:id="rId1"/><sheet name="Sales" sheetId="2" r:id="rId2"/><sheet name="Ledger" sheetId="3" r:id="rId4"/></sheets></workbook>'))
    parts.append(("xl/_rels/workbook.xml.rels", XML + f'<Relationships xmlns="{RELS}">'
                  f'<Relationship Id="rId1" Type="{DOCREL}/worksheet" Target="worksheets/sheet1.xml"/>'
                  f'<Relationship Id="rId2" Type="{DOCREL}/worksheet" Target="worksheets/sheet2.xml"/>'
                  f'<Relationship Id="rId3" Type="{DOCREL}/sharedStrings" Target="sharedStrings.xml"/>'
                  f'<Relationship Id="rId4" Type="{DOCREL}/worksheet" Target="worksheets/sheet3.xml"/></Relationships>'))
    types = XML + '''<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/worksheets/sheet3.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>
</Types>'''
    rels = XML + f'<Relationships xmlns="{RELS}"><Relationship Id="rId1" Type="{DOCREL}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    return [("[Content_Types].xml", types), ("_rels/.rels", rels)] + parts


def mobi_bytes():
    """A Mobipocket e-book: a Palm database (BOOKMOBI) of one header record (PalmDOC header, uncompressed, then a MOBI
    header saying UTF-8) and one text record of HTML, as the MOBI format lays them out."""
    import struct
    html = ("<html><head><title>Owl survey</title></head><body><h1>Owl survey</h1>"
            "<p>The wombatmobi survey counted owls in the north wood.</p>"
            "<mbp:pagebreak/><h1>Bats</h1><p>Bats were counted at dusk.</p></body></html>").encode("utf-8")
    assert len(html) < 4096
    mobi_len = 232
    mobi = bytearray(mobi_len)
    mobi[0:4] = b"MOBI"
    struct.pack_into(">IIII", mobi, 4, mobi_len, 2, 65001, 1)  # header length, type: book, UTF-8, unique id
    struct.pack_into(">I", mobi, 20, 6)  # file version
    struct.pack_into(">I", mobi, 0x50 - 16, 0xFFFFFFFF)  # no indexes, no first non-book record
    rec0 = struct.pack(">HHIHHHH", 1, 0, len(html), 1, 4096, 0, 0) + bytes(mobi)
    recs = [rec0, html]
    n = len(recs)
    header = bytearray(78)
    header[0:10] = b"Owl_survey"
    struct.pack_into(">HH", header, 32, 0, 0)
    header[60:68] = b"BOOKMOBI"
    struct.pack_into(">IIH", header, 68, 2 * n, 0, n)
    offset = 78 + 8 * n + 2
    entries = b""
    for i, r in enumerate(recs):
        entries += struct.pack(">IB", offset, 0) + (2 * i).to_bytes(3, "big")
        offset += len(r)
    return bytes(header) + entries + b"\0\0" + b"".join(recs)


def pptx_parts():
    A = "http://schemas.openxmlformats.org/drawingml/2006/main"
    P = "http://schemas.openxmlformats.org/presentationml/2006/main"

    def slide(title, text):
        def shape(i, t, y):
            return (f'<p:sp><p:nvSpPr><p:cNvPr id="{i}" name="Text {i}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>'
                    f'<p:spPr><a:xfrm><a:off x="457200" y="{y}"/><a:ext cx="8229600" cy="1143000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>'
                    f'<p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US" sz="2800"/><a:t>{t}</a:t></a:r></a:p></p:txBody></p:sp>')
        return XML + (f'<p:sld xmlns:a="{A}" xmlns:p="{P}" xmlns:r="{DOCREL}"><p:cSld><p:spTree>'
                      '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
                      + shape(2, title, 457200) + shape(3, text, 2000000) + '</p:spTree></p:cSld></p:sld>')

    parts = [("ppt/slides/slide1.xml", slide("Launch plan", "The wombatpptx rocket leaves in spring.")),
             ("ppt/slides/slide2.xml", slide("Budget", "Fuel costs more than the second slide says."))]
    parts.append(("ppt/presentation.xml", XML + f'<p:presentation xmlns:a="{A}" xmlns:p="{P}" xmlns:r="{DOCREL}">'
                  '<p:sldIdLst><p:sldId id="256" r:id="rId1"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst>'
                  '<p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>'))
    parts.append(("ppt/_rels/presentation.xml.rels", XML + f'<Relationships xmlns="{RELS}">'
                  f'<Relationship Id="rId1" Type="{DOCREL}/slide" Target="slides/slide1.xml"/>'
                  f'<Relationship Id="rId2" Type="{DOCREL}/slide" Target="slides/slide2.xml"/></Relationships>'))
    types = XML + '''<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>
<Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>
<Override PartName="/ppt/slides/slide2.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>
</Types>'''
    rels = XML + f'<Relationships xmlns="{RELS}"><Relationship Id="rId1" Type="{DOCREL}/officeDocument" Target="ppt/presentation.xml"/></Relationships>'
    return [("[Content_Types].xml", types), ("_rels/.rels", rels)] + parts


def epub_parts():
    def chapter(title, text):
        return XML + (f'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title></head>'
                      f'<body><h1>{title}</h1><p>{text}</p></body></html>')

    container = XML + ('<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                       '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
    opf = XML + '''<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">proofglass-test-epub</dc:identifier>
<dc:title>The Two Chapters</dc:title><dc:language>en</dc:language></metadata>
<manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="ch2.xhtml" media-type="application/xhtml+xml"/>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest>
<spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>'''
    nav = XML + ('<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>'
                 '<body><nav epub:type="toc"><ol><li><a href="ch1.xhtml">One</a></li><li><a href="ch2.xhtml">Two</a></li></ol></nav></body></html>')
    return [("META-INF/container.xml", container), ("OEBPS/content.opf", opf), ("OEBPS/nav.xhtml", nav),
            ("OEBPS/ch1.xhtml", chapter("Chapter One", "The wombatepub ferry crossed the bay at dawn.")),
            ("OEBPS/ch2.xhtml", chapter("Chapter Two", "At dusk the ferry came back with the mail."))]


ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
          'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"')


def odf(mimetype, body):
    """An OpenDocument package: the stored mimetype first, a manifest and content.xml (ODF 1.2, part 3)."""
    manifest = XML + ('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
                      'manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="'
                      + mimetype + '"/><manifest:file-entry manifest:full-path="content.xml" '
                      'manifest:media-type="text/xml"/></manifest:manifest>')
    content = XML + '<office:document-content ' + ODF_NS + ' office:version="1.2"><office:body>' + body + \
        '</office:body></office:document-content>'
    return [("META-INF/manifest.xml", manifest), ("content.xml", content)], ("mimetype", mimetype)


def odf_cells(cells):
    return "".join('<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>' % c for c in cells)


def main():
    docx = docx_parts()
    write_zip("report.docx", docx)
    write_zip("workbook.xlsx", xlsx_parts())
    with open(os.path.join(HERE, "book.mobi"), "wb") as f:
        f.write(mobi_bytes())
    write_zip("slides.pptx", pptx_parts())
    write_zip("book.epub", epub_parts(), stored_first=("mimetype", "application/epub+zip"))
    pngs = [os.path.join(SHARED, "images", "charts", n) for n in ("bkf_plot.png", "cff_plot.png")]
    write_zip("comic.cbz", [(f"page{i:02d}.png", open(p, "rb").read()) for i, p in enumerate(pngs, 1)])
    write("story.fb2", XML + '''<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">
<description><title-info><book-title>Short Story</book-title><lang>en</lang></title-info></description>
<body><section><title><p>Part One</p></title><p>The wombatfb lighthouse keeper counted ships.</p></section>
<section><title><p>Part Two</p></title><p>Nobody came that winter.</p></section></body></FictionBook>
''')
    write("page.xhtml", XML + '''<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Notice</title></head>
<body><h1>Notice</h1><p>The wombatxhtml library closes early on Fridays.</p></body></html>
''')
    write("page.html", '''<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Menu</title></head>
<body><h1>Menu</h1><p>Today the wombathtml soup is pumpkin.<br>Bread is extra.</p></body></html>
''')
    write("notes.txt", "Meeting notes\n\nThe wombattxt committee met on Tuesday.\nNext meeting in May.\n")
    write("guide.md", '''# Setup guide

The wombatmd installer needs a network.

## 2 Steps

1. Download the archive.
2. Run the installer.

| Option | Default |
|---|---|
| port | 8080 |
| mode | quiet |
''')
    write("prices.csv", 'fruit,price,origin\napple,1.20,Kent\n"wombatcsv, dried",3.50,"Hobart"\npear,0.90,Kent\n')
    write("stations.tsv", "station\tline\tzone\nwombattsv\tRed\t1\nHarbour\tBlue\t2\n")
    entries, first = odf("application/vnd.oasis.opendocument.text",
                         '<office:text><text:h text:outline-level="1">Field notes</text:h>'
                         '<text:p>The wombatodt survey counted <text:span>owls</text:span> and bats.</text:p>'
                         '<text:list><text:list-item><text:p>north wood</text:p></text:list-item></text:list>'
                         '<table:table table:name="Counts"><table:table-row>' + odf_cells(["Site", "Owls"]) +
                         '</table:table-row><table:table-row>' + odf_cells(["North", "4"]) +
                         '</table:table-row></table:table></office:text>')
    write_zip("notes.odt", entries, stored_first=first)
    entries, first = odf("application/vnd.oasis.opendocument.spreadsheet",
                         '<office:spreadsheet><table:table table:name="Stock"><table:table-row>' +
                         odf_cells(["Item", "Count"]) + '<table:table-cell table:number-columns-repeated="16000"/>'
                         '</table:table-row><table:table-row>' + odf_cells(["wombatods", "14"]) +
                         '</table:table-row><table:table-row table:number-rows-repeated="1048000">'
                         '<table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>'
                         '</office:spreadsheet>')
    write_zip("stock.ods", entries, stored_first=first)
    entries, first = odf("application/vnd.oasis.opendocument.presentation",
                         '<office:presentation><draw:page draw:name="Intro"><draw:frame><draw:text-box>'
                         '<text:p>The wombatodp tour starts at noon.</text:p></draw:text-box></draw:frame></draw:page>'
                         '<draw:page draw:name="Route"><draw:frame><draw:text-box><text:p>Harbour, then the hill.'
                         '</text:p></draw:text-box></draw:frame></draw:page></office:presentation>')
    write_zip("tour.odp", entries, stored_first=first)
    # Damaged files: each claims a format by its name.
    whole = open(os.path.join(HERE, "report.docx"), "rb").read()
    with open(os.path.join(HERE, "bad-truncated.docx"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    write_zip("bad-norels.docx", [p for p in docx if p[0] != "_rels/.rels"])
    write_zip("bad-nocontent.odt", odf("application/vnd.oasis.opendocument.text", "")[0][:1],
              stored_first=("mimetype", "application/vnd.oasis.opendocument.text"))
    with open(os.path.join(HERE, "bad-garbage.epub"), "wb") as f:
        f.write(bytes((i * 7919 + 13) % 251 for i in range(4096)))
    mail_files()
    write_zip("summary.xps", xps_parts())
    bad_files()


def go_font():
    """The Go fonts' regular face (Bigelow & Holmes for the Go project, BSD-3-Clause), from golang.org/x/image in
    the Go module cache: a go.mod dependency, so it is there once the module's dependencies are downloaded."""
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    found = sorted(glob.glob(os.path.join(cache, "golang.org", "x", "image@v0.48.0", "font", "gofont", "ttfs", "Go-Regular.ttf")))
    if not found:
        sys.exit("make.py: golang.org/x/image v0.48.0 is not in the module cache (run: go mod download golang.org/x/image)")
    return open(found[0], "rb").read()


def xps_parts():
    """An XPS document (the Microsoft XPS 1.0 namespace): one fixed page of glyph runs in the embedded Go font."""
    ns = "http://schemas.microsoft.com/xps/2005/06"
    lines = ["Quarterly summary", "The wombatxps depot shipped 1,240 crates.", "Returns fell to 3.1%."]
    glyphs = "".join(
        f'<Glyphs FontUri="/Resources/Go-Regular.ttf" FontRenderingEmSize="{22 if i == 0 else 14}" OriginX="96" '
        f'OriginY="{120 + 36 * i}" Fill="#FF000000" UnicodeString="{t}"/>' for i, t in enumerate(lines))
    return [
        ("[Content_Types].xml", XML + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
         '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
         '<Default Extension="fdseq" ContentType="application/vnd.ms-package.xps-fixeddocumentsequence+xml"/>'
         '<Default Extension="fdoc" ContentType="application/vnd.ms-package.xps-fixeddocument+xml"/>'
         '<Default Extension="fpage" ContentType="application/vnd.ms-package.xps-fixedpage+xml"/>'
         '<Default Extension="ttf" ContentType="application/vnd.ms-opentype"/></Types>'),
        ("_rels/.rels", XML + f'<Relationships xmlns="{RELS}"><Relationship Id="R1" '
         'Type="http://schemas.microsoft.com/xps/2005/06/fixedrepresentation" Target="/FixedDocSeq.fdseq"/></Relationships>'),
        ("FixedDocSeq.fdseq", XML + f'<FixedDocumentSequence xmlns="{ns}"><DocumentReference Source="/Documents/1/FixedDoc.fdoc"/>'
         '</FixedDocumentSequence>'),
        ("Documents/1/FixedDoc.fdoc", XML + f'<FixedDocument xmlns="{ns}"><PageContent Source="Pages/1.fpage"/></FixedDocument>'),
        ("Documents/1/Pages/1.fpage", XML + f'<FixedPage xmlns="{ns}" Width="816" Height="1056" xml:lang="en-US">{glyphs}</FixedPage>'),
        ("Documents/1/Pages/_rels/1.fpage.rels", XML + f'<Relationships xmlns="{RELS}"><Relationship Id="F1" '
         'Type="http://schemas.microsoft.com/xps/2005/06/required-resource" Target="/Resources/Go-Regular.ttf"/></Relationships>'),
        ("Resources/Go-Regular.ttf", go_font()),
    ]


def mail_files():
    """message.eml (a plain-text body, a Word report and a CSV attached) and mailbox.mbox (three messages: one in
    Latin-1 quoted-printable, one HTML-only with a Chinese subject, one with a CSV attached)."""
    m = EmailMessage(policy=policy.SMTP)
    m["From"] = "Ana Ruiz <ana@example.org>"
    m["To"] = "Board <board@example.org>"
    m["Cc"] = "Bo Chen <bo@example.org>"
    m["Subject"] = "Q3 figures for the board"
    m["Date"] = "Tue, 14 Nov 2023 09:30:00 +0100"
    m["Message-ID"] = "<q3-figures@example.org>"
    m.set_content("Dear all,\n\nthe wombateml review is attached: revenue rose 4.2% in Q3.\n\nAna\n")
    m.add_attachment(open(os.path.join(HERE, "report.docx"), "rb").read(), maintype="application",
                     subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="review.docx")
    m.add_attachment(open(os.path.join(HERE, "prices.csv"), "rb").read(), maintype="text", subtype="csv",
                     filename="prices.csv")
    m.set_boundary("==q3-figures==")  # fixed, so the file is the same on every run
    with open(os.path.join(HERE, "message.eml"), "wb") as f:
        f.write(m.as_bytes())

    def boxed(msg, sender, when):
        body = msg.as_bytes(policy=policy.SMTP.clone(linesep="\n"))
        body = b"\n".join(b">" + l if l.lstrip(b">").startswith(b"From ") else l for l in body.split(b"\n"))
        return b"From " + sender.encode() + b" " + when.encode() + b"\n" + body.rstrip(b"\n") + b"\n\n"

    one = MIMEText("Le caf\u00e9 wombatmbox ouvre \u00e0 8 h.\nFrom now on, on Mondays too.\n", "plain", "iso-8859-1")
    one.replace_header("Content-Transfer-Encoding", "quoted-printable")
    one.set_payload("Le caf=E9 wombatmbox ouvre =E0 8 h.\nFrom now on, on Mondays too.\n")
    one["From"] = "Claire <claire@example.fr>"
    one["To"] = "ana@example.org"
    one["Subject"] = "Horaires"
    one["Date"] = "Mon, 02 Oct 2023 08:00:00 +0200"
    two = MIMEText("<html><body><p>\u5e74\u5ea6\u62a5\u544a wombatzhmail \u5df2\u53d1\u5e03\u3002</p>"
                   "<script>alert(1)</script></body></html>", "html", "utf-8")
    two["From"] = "=?utf-8?b?5p2O5piO?= <li@example.cn>"
    two["To"] = "ana@example.org"
    two["Subject"] = "=?utf-8?b?5bm05bqm5oql5ZGK?="
    two["Date"] = "Wed, 15 Nov 2023 10:00:00 +0800"
    three = MIMEMultipart()
    three["From"] = "Bo Chen <bo@example.org>"
    three["To"] = "ana@example.org"
    three["Subject"] = "Stations list"
    three["Date"] = "Thu, 16 Nov 2023 11:00:00 +0000"
    three.attach(MIMEText("The list is attached.\n", "plain", "us-ascii"))
    att = MIMEText(open(os.path.join(HERE, "stations.tsv"), encoding="utf-8").read(), "tab-separated-values", "utf-8")
    att.add_header("Content-Disposition", "attachment", filename="stations.tsv")
    three.attach(att)
    three.set_boundary("==stations==")
    with open(os.path.join(HERE, "mailbox.mbox"), "wb") as f:
        f.write(boxed(one, "claire@example.fr", "Mon Oct  2 08:00:00 2023"))
        f.write(boxed(two, "li@example.cn", "Wed Nov 15 10:00:00 2023"))
        f.write(boxed(three, "bo@example.org", "Thu Nov 16 11:00:00 2023"))
    # Damaged: a name that claims a message over text that is none; a mailbox whose separator is followed by noise.
    write("bad-notmail.eml", "Dear all, the figures: 12, 13.\nNo header here.\n")
    with open(os.path.join(HERE, "bad-garbage.mbox"), "wb") as f:
        f.write(b"From nobody Mon Jan  1 00:00:00 2024\n" + bytes((i * 7919 + 13) % 251 for i in range(4096)))


def bad_files():
    """A damaged file of each other format, each claiming its format by its name."""
    def half(src, dst):
        whole = open(os.path.join(HERE, src), "rb").read()
        with open(os.path.join(HERE, dst), "wb") as f:
            f.write(whole[: len(whole) // 2])
    for src, dst in [("workbook.xlsx", "bad-truncated.xlsx"), ("slides.pptx", "bad-truncated.pptx"),
                     ("stock.ods", "bad-truncated.ods"), ("tour.odp", "bad-truncated.odp"),
                     ("comic.cbz", "bad-truncated.cbz")]:
        half(src, dst)
    # XPS whose content types name a fixed document sequence the package does not hold.
    write_zip("bad-nofdseq.xps", [p for p in xps_parts() if p[0] != "FixedDocSeq.fdseq"])
    # A Mobipocket header over records that are not there.
    mobi = mobi_bytes()
    with open(os.path.join(HERE, "bad-records.mobi"), "wb") as f:
        f.write(mobi[:120])
    write("bad-unclosed.fb2", XML + '<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"><body><section><p>cut')
    for ext in ("csv", "tsv", "txt", "md", "html"):  # text formats: not UTF-8 text, or no markup
        with open(os.path.join(HERE, "bad-binary." + ext), "wb") as f:
            f.write(ext.encode() + b",b\n" + bytes(range(256)))


if __name__ == "__main__":
    main()
