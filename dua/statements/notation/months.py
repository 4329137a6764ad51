"""Month names banks print, per language, as data: the date inducer reads them, no code per language.

Each language lists its twelve months in order; a month is its forms separated by spaces,
the full name first (the nominative, then the genitive a date prints in Slavic languages),
then any abbreviation that is not a prefix of a full form ('agt', 'čvn'). Any prefix of a
full form of three letters or more is an abbreviation too, with or without a dot.
"""
from __future__ import annotations

MONTHS = {
    "en": "january february march april may june july august september october november december",
    "fr": "janvier février|fevrier mars avril mai juin juillet août|aout septembre octobre "
          "novembre décembre|decembre",
    "de": "januar|jänner|jaenner februar|feber märz|maerz|mrz april mai juni juli august "
          "september oktober november dezember",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre|setiembre octubre "
          "noviembre diciembre",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre "
          "novembre dicembre",
    "pt": "janeiro fevereiro março|marco abril maio junho julho agosto setembro outubro "
          "novembro dezembro",
    "nl": "januari februari maart|mrt april mei juni juli augustus september oktober november "
          "december",
    "sv": "januari februari mars april maj juni juli augusti september oktober november "
          "december",
    "da": "januar februar marts april maj juni juli august september oktober november "
          "december",
    "no": "januar februar mars april mai juni juli august september oktober november "
          "desember",
    "fi": "tammikuu|tammikuuta helmikuu|helmikuuta maaliskuu|maaliskuuta huhtikuu|huhtikuuta "
          "toukokuu|toukokuuta kesäkuu|kesäkuuta heinäkuu|heinäkuuta elokuu|elokuuta "
          "syyskuu|syyskuuta lokakuu|lokakuuta marraskuu|marraskuuta joulukuu|joulukuuta",
    "pl": "styczeń|stycznia luty|lutego marzec|marca kwiecień|kwietnia maj|maja "
          "czerwiec|czerwca lipiec|lipca sierpień|sierpnia wrzesień|września "
          "październik|października listopad|listopada grudzień|grudnia",
    "cs": "leden|ledna únor|února březen|března duben|dubna květen|května "
          "červen|června|čvn červenec|července|čvc srpen|srpna září říjen|října "
          "listopad|listopadu prosinec|prosince",
    "tr": "ocak şubat mart nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık",
    "ru": "январь|января февраль|февраля март|марта апрель|апреля май|мая июнь|июня "
          "июль|июля август|августа сентябрь|сентября октябрь|октября ноябрь|ноября "
          "декабрь|декабря",
    "uk": "січень|січня лютий|лютого березень|березня квітень|квітня травень|травня "
          "червень|червня липень|липня серпень|серпня вересень|вересня жовтень|жовтня "
          "листопад|листопада грудень|грудня",
    "id": "januari februari maret april mei juni juli agustus|agt september oktober "
          "november desember",
    "ms": "januari februari mac april mei jun julai ogos september oktober november disember",
    "ro": "ianuarie februarie martie aprilie mai iunie iulie august septembrie octombrie "
          "noiembrie decembrie",
    "hu": "január február március április május június július augusztus szeptember október "
          "november december",
}

# Markers that follow the year, the month and the day in CJK dates (2024年12月16日, 2024년 12월 16일).
CJK_MARKS = {"年": "y", "月": "m", "日": "d", "년": "y", "월": "m", "일": "d",
             "\u2f49": "m", "\u2f47": "d"}  # the Kangxi radicals CJK fonts map 月 and 日 to


def forms() -> dict:
    """Language -> twelve lists of forms (lower case), from ``MONTHS``."""
    out = {}
    for lang, text in MONTHS.items():
        months = text.split()
        assert len(months) == 12, lang
        out[lang] = [m.split("|") for m in months]
    return out
