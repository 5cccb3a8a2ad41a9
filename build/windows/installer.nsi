; Proofglass's Windows installer (NSIS 3, built on Debian by scripts/package-windows.sh): a per-user install that needs
; no administrator (%LocalAppData%\Programs\Proofglass, HKCU only), a Start menu entry, "Open with" for PDFs, images
; and videos, and an uninstaller that keeps the user's library (%AppData%\Proofglass) and saved keys unless asked to
; delete them (its "Also delete my library" box, or /REMOVELIBRARY with /S).
; makensis -D: VERSION (shown), VERSION4 (a.b.c.d), SRC (the staged files), ICON, OUTFILE, SIGN (a command that signs
; its argument in place, or empty).
Unicode true
Target amd64-unicode
RequestExecutionLevel user
SetCompressor /SOLID lzma
ManifestDPIAware true

!include MUI2.nsh
!include FileFunc.nsh
!include LogicLib.nsh
!include WordFunc.nsh

!define APP "Proofglass"
!define EXE "proofglass.exe"
!define PROGID "Proofglass.File"
!define UNINST "Software\Microsoft\Windows\CurrentVersion\Uninstall\Proofglass"
!define APPPATHS "Software\Microsoft\Windows\CurrentVersion\App Paths\${EXE}"

Name "${APP}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "Software\${APP}" "InstallDir"
BrandingText "${APP} ${VERSION}"
VIProductVersion "${VERSION4}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "CompanyName" "Proofglass developers"
VIAddVersionKey "LegalCopyright" "Proofglass developers, AGPL-3.0-or-later"
!if "${SIGN}" != ""
!uninstfinalize '${SIGN} "%1"'
!endif

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!define MUI_COMPONENTSPAGE_NODESC
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; The file types Proofglass offers to open (backend/ingest's extensions, less the ambiguous .ts and audio .ogg, and
; .txt and .html, which "Open with" should not claim for a Q&A app; TestOpenWithListsTheFormats keeps them in step).
!macro EachType M
  !insertmacro ${M} .pdf
  !insertmacro ${M} .docx
  !insertmacro ${M} .xlsx
  !insertmacro ${M} .pptx
  !insertmacro ${M} .odt
  !insertmacro ${M} .ods
  !insertmacro ${M} .odp
  !insertmacro ${M} .epub
  !insertmacro ${M} .mobi
  !insertmacro ${M} .fb2
  !insertmacro ${M} .xps
  !insertmacro ${M} .oxps
  !insertmacro ${M} .cbz
  !insertmacro ${M} .md
  !insertmacro ${M} .markdown
  !insertmacro ${M} .csv
  !insertmacro ${M} .tsv
  !insertmacro ${M} .eml
  !insertmacro ${M} .mbox
  !insertmacro ${M} .png
  !insertmacro ${M} .jpg
  !insertmacro ${M} .jpeg
  !insertmacro ${M} .gif
  !insertmacro ${M} .webp
  !insertmacro ${M} .tif
  !insertmacro ${M} .tiff
  !insertmacro ${M} .bmp
  !insertmacro ${M} .mp4
  !insertmacro ${M} .m4v
  !insertmacro ${M} .mov
  !insertmacro ${M} .mkv
  !insertmacro ${M} .webm
  !insertmacro ${M} .avi
  !insertmacro ${M} .mpg
  !insertmacro ${M} .mpeg
!macroend
!macro RegisterType EXT
  WriteRegStr HKCU "Software\Classes\${EXT}\OpenWithProgids" "${PROGID}" ""
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}\SupportedTypes" "${EXT}" ""
!macroend
!macro UnregisterType EXT
  DeleteRegValue HKCU "Software\Classes\${EXT}\OpenWithProgids" "${PROGID}"
  DeleteRegKey /ifempty HKCU "Software\Classes\${EXT}\OpenWithProgids"
  DeleteRegKey /ifempty HKCU "Software\Classes\${EXT}"
!macroend

Section "Proofglass" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${SRC}\${EXE}"
  File "${SRC}\proofglass-pdf-worker.exe"
  File "${SRC}\proofglass.com"
  File "${SRC}\LICENSE.txt"
  File "${SRC}\COPYRIGHT.txt"
  File "${SRC}\THIRD-PARTY-NOTICES.txt"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortCut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\${EXE}" 0

  WriteRegStr HKCU "Software\${APP}" "InstallDir" "$INSTDIR"
  ; Win+R and `start proofglass` find it without PATH.
  WriteRegStr HKCU "${APPPATHS}" "" "$INSTDIR\${EXE}"
  WriteRegStr HKCU "${APPPATHS}" "Path" "$INSTDIR"
  ; "Open with": a ProgID the file types list, and the application's own entry.
  WriteRegStr HKCU "Software\Classes\${PROGID}" "" "Document for ${APP}"
  WriteRegStr HKCU "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\${EXE},0"
  WriteRegStr HKCU "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}" "FriendlyAppName" "${APP}"
  WriteRegStr HKCU "Software\Classes\Applications\${EXE}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'
  !insertmacro EachType RegisterType
  ; Apps and Features.
  WriteRegStr HKCU "${UNINST}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST}" "DisplayIcon" "$INSTDIR\${EXE},0"
  WriteRegStr HKCU "${UNINST}" "Publisher" "Proofglass developers"
  WriteRegStr HKCU "${UNINST}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST}" "EstimatedSize" $0
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)' ; SHCNE_ASSOCCHANGED
SectionEnd

;  On unless unticked: the folder joins the user's PATH, so "proofglass" works in any cmd or PowerShell window (it
; runs proofglass.com, which waits for the subcommand). A PATH NSIS cannot read whole (longer than its strings) is
; left as it is rather than cut, and the install says so.
!define /math PATH_MAX_EDIT ${NSIS_MAX_STRLEN} - 300
Section "Add to PATH (the proofglass command in cmd and PowerShell)" SecPath
  Call UserPathExists
  Pop $2
  ClearErrors
  ReadRegStr $0 HKCU "Environment" "Path"
  ${If} ${Errors}
  ${AndIf} $2 == 1
    DetailPrint "PATH is too long to edit safely; add $INSTDIR to it yourself"
    Return
  ${EndIf}
  StrLen $1 $0
  ${If} $1 >= ${PATH_MAX_EDIT}
    DetailPrint "PATH is too long to edit safely; add $INSTDIR to it yourself"
    Return
  ${EndIf}
  ${WordReplace} ";$0;" ";$INSTDIR;" ";" "+" $3
  ${If} $3 != ";$0;"
    Return ; already on it
  ${EndIf}
  ${If} $0 == ""
    WriteRegExpandStr HKCU "Environment" "Path" "$INSTDIR"
  ${Else}
    WriteRegExpandStr HKCU "Environment" "Path" "$0;$INSTDIR"
  ${EndIf}
  WriteRegDWORD HKCU "Software\${APP}" "AddedToPath" 1
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
SectionEnd

; UserPathExists pushes 1 when HKCU\Environment has a Path value (ReadRegStr fails alike for a missing value and for
; one longer than its buffer, and only the first may be written).
Function UserPathExists
  Push $R0
  Push $R1
  StrCpy $R0 0
  loop:
    EnumRegValue $R1 HKCU "Environment" $R0
    StrCmp $R1 "" none
    StrCmp $R1 "Path" found ; StrCmp ignores case
    IntOp $R0 $R0 + 1
    Goto loop
  found:
    Pop $R1
    Pop $R0
    Push 1
    Return
  none:
    Pop $R1
    Pop $R0
    Push 0
FunctionEnd


; Off unless chosen: the documents, index and settings in the default data directory (a --data or PROOFGLASS_DATA
; directory elsewhere is never touched), and the API keys and server token in Credential Manager. It runs before the
; program's files go, as proofglass.exe forgets the keys.
Section /o "un.Also delete my library and saved keys (%AppData%\Proofglass, Credential Manager)" UnSecLibrary
  nsExec::Exec '"$INSTDIR\${EXE}" --data "$APPDATA\${APP}" secrets clear'
  Pop $0
  RMDir /r "$APPDATA\${APP}"
SectionEnd

Section "un.Proofglass" UnSecApp
  SectionIn RO
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\proofglass-pdf-worker.exe"
  Delete "$INSTDIR\proofglass.com"
  Delete "$INSTDIR\LICENSE.txt"
  Delete "$INSTDIR\COPYRIGHT.txt"
  Delete "$INSTDIR\THIRD-PARTY-NOTICES.txt"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${APP}.lnk"
  ; The window's WebView2 profile: a cache, never the library.
  RMDir /r "$LOCALAPPDATA\${APP}\WebView2"
  RMDir "$LOCALAPPDATA\${APP}"
  !insertmacro EachType UnregisterType
  DeleteRegKey HKCU "Software\Classes\${PROGID}"
  DeleteRegKey HKCU "Software\Classes\Applications\${EXE}"
  DeleteRegKey HKCU "${APPPATHS}"
  DeleteRegKey HKCU "${UNINST}"
  ReadRegDWORD $0 HKCU "Software\${APP}" "AddedToPath"
  ${If} $0 == 1
    ClearErrors
    ReadRegStr $0 HKCU "Environment" "Path"
    StrLen $1 $0
    ${IfNot} ${Errors}
    ${AndIf} $1 < ${PATH_MAX_EDIT}
      ${un.WordReplace} ";$0;" ";$INSTDIR;" ";" "+" $1
      StrCpy $1 $1 "" 1 ; the sentinels
      StrCpy $1 $1 -1
      ${If} $1 == ""
        DeleteRegValue HKCU "Environment" "Path"
      ${Else}
        WriteRegExpandStr HKCU "Environment" "Path" "$1"
      ${EndIf}
      SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
    ${EndIf}
  ${EndIf}
  DeleteRegKey HKCU "Software\${APP}"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

Function un.onInit
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/REMOVELIBRARY" $1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnSecLibrary} ${SF_SELECTED}
  ${EndIf}
FunctionEnd
