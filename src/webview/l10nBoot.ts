/** Installs the page's l10n bundle; imported first by main.ts so it runs before any module builds a string. */

import { loadL10nFromPage } from './l10n.ts';

loadL10nFromPage(document);
