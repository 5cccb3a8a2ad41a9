// The window's languages: i18next with react-i18next, one message catalogue per language (locales/*.json).
// The language follows the system locale unless the user picked one in Settings (remembered in localStorage).
import i18n from 'i18next'
import { initReactI18next } from 'react-i18next'
import en from './locales/en.json'
import zhCN from './locales/zh-CN.json'
import { pseudoTree } from './pseudo'

export const languages = ['en', 'zh-CN'] as const
export type Language = (typeof languages)[number]
/** A choice in Settings: a language, or 'auto' (the system locale); 'pseudo' is the testing locale (pseudo.ts). */
export type LanguageChoice = Language | 'auto' | 'pseudo'

export const resources = { en: { translation: en }, 'zh-CN': { translation: zhCN } } as const
const pseudo = { translation: pseudoTree(en) }

const storageKey = 'proofglass.language'

/** matchLanguage maps locale tags (navigator.languages) to the first catalogue that has them, else English. */
export function matchLanguage(tags: readonly string[]): Language {
  for (const tag of tags) {
    const t = tag.toLowerCase()
    if (t.startsWith('zh')) return 'zh-CN'
    if (t.startsWith('en')) return 'en'
  }
  return 'en'
}

function systemLanguage(): Language {
  if (typeof navigator === 'undefined') return 'en'
  const tags = navigator.languages && navigator.languages.length > 0 ? navigator.languages : [navigator.language]
  return matchLanguage(tags.filter(Boolean))
}

/** storedChoice is the language picked in Settings ('auto' when none was). */
export function storedChoice(): LanguageChoice {
  try {
    const v = localStorage.getItem(storageKey)
    if (v === 'en' || v === 'zh-CN' || v === 'pseudo') return v
  } catch {
    // no storage (private mode, tests): follow the system
  }
  return 'auto'
}

function resolve(choice: LanguageChoice): Language | 'pseudo' {
  return choice === 'auto' ? systemLanguage() : choice
}

function applyDocumentLanguage(lang: string) {
  if (typeof document !== 'undefined') document.documentElement.lang = lang
}

/** chooseLanguage switches the window's language at once and remembers the choice. */
export async function chooseLanguage(choice: LanguageChoice): Promise<void> {
  try {
    if (choice === 'auto') localStorage.removeItem(storageKey)
    else localStorage.setItem(storageKey, choice)
  } catch {
    // not remembered, still applied
  }
  await i18n.changeLanguage(resolve(choice))
}

/** currentLanguage is the language the window shows now (its numbers and dates: English for the pseudo-locale). */
export function currentLanguage(): Language {
  const l = i18n.resolvedLanguage ?? i18n.language
  return l === 'zh-CN' ? 'zh-CN' : 'en'
}

i18n.on('languageChanged', applyDocumentLanguage)
void i18n.use(initReactI18next).init({
  resources: { ...resources, pseudo },
  lng: resolve(storedChoice()),
  fallbackLng: 'en',
  supportedLngs: [...languages, 'pseudo'],
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  initAsync: false,
})
applyDocumentLanguage(currentLanguage())

export { i18n }
export const t = i18n.t.bind(i18n)
export { Trans, useTranslation } from 'react-i18next'
