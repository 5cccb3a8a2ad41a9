// Files dropped on the window, from the Wails runtime (desktop only: a plain browser has no runtime to ask).
import { OnFileDrop, OnFileDropOff } from '../../wailsjs/runtime/runtime'

declare global {
  interface Window {
    /** The Wails runtime's JavaScript API (what wailsjs/runtime calls); absent without Wails. */
    runtime?: Record<string, unknown>
  }
}

/** onFilesDropped calls cb with the paths of files dropped anywhere on the window (desktop only). */
export function onFilesDropped(cb: (paths: string[]) => void): () => void {
  if (!window.runtime?.OnFileDrop) return () => {}
  OnFileDrop((_x: number, _y: number, paths: string[]) => cb(paths), false)
  return () => OnFileDropOff()
}
