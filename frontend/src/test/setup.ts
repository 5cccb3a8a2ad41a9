// Component tests read English: the window starts in English whatever the machine's locale is.
import { i18n } from '../i18n'

beforeEach(async () => {
  if (i18n.language !== 'en') await i18n.changeLanguage('en')
})
