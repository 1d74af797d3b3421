"""The pieces the identity rules are built from: what a name, a place, an employer, a
role, a time zone and a diet look like, and the case-insensitive frame around them.

Kept apart from the rule table, whose two modules (``identity_rules`` and
``identity_rules_later``) both build on these: one definition of "a place" or "a role"
serves every rule that names one.
"""

from __future__ import annotations

__all__ = [
    "ADVS",
    "DIET",
    "NAME",
    "ORG",
    "PLACE",
    "ROLE",
    "ROLES",
    "SUFFIX_ROLE",
    "WE_I",
    "ZONE",
    "ci",
]

NAME = r"(?P<x>[A-Z][\w'\-]+(?:\s+[A-Z][\w'\-]+){0,2})"
PLACE = (
    r"(?:the\s+)?(?P<x>[A-Z][\w'\-]+(?:[\s,]+(?:[A-Z][\w'\-]+|(?:de|del|la|le|am|upon|on|of)\b)){0,4})"
    r"(?:\s+(?:office|area|region|branch|hq|campus))?"
)
ORG = r"(?P<x>[^,;:!?\n]+?)(?=\s+(?:as|in|on|since|from|last|this|a\s+few|two|three|for)\b|$)"
ROLES = (
    r"developer|engineer|programmer|designer|manager|scientist|researcher|analyst|architect|"
    r"consultant|founder|co-founder|cofounder|ceo|cto|cfo|coo|vp|director|lead|head|teacher|"
    r"professor|lecturer|student|intern|doctor|nurse|physician|surgeon|dentist|lawyer|"
    r"accountant|writer|author|journalist|editor|artist|musician|photographer|chef|"
    r"entrepreneur|freelancer|contractor|administrator|admin|sysadmin|devops|sre|tester|"
    r"marketer|recruiter|salesperson|owner|officer|specialist|technician|mechanic|pharmacist|"
    r"therapist|counselor|counsellor|psychologist|economist|statistician|mathematician|"
    r"physicist|chemist|biologist|veterinarian|vet|pilot|librarian|translator|coach|trainer|"
    r"phd\s+student|postdoc|maintainer|hobbyist|beginner|retiree|parent|mom|dad|mother|"
    r"father|paralegal|pm|po|qa|ux\s+researcher|data\s+engineer|product\s+owner|barista|"
    r"electrician|plumber|carpenter|farmer|firefighter|police\s+officer|soldier|nanny|"
    r"bookkeeper|cashier|clerk|receptionist|secretary|assistant"
)
# Roles named by a suffix the list does not hold ("a bioinformatician", "a pianist").
_NOT_ROLES = (
    r"vegetarian|christian|optimist|pessimist|perfectionist|realist|idealist|minimalist|"
    r"introvert|extrovert|utilitarian|libertarian|egalitarian|contrarian|humanitarian|feminist|"
    r"atheist|socialist|communist|capitalist|buddhist|narcissist|completionist|tourist|activist|"
    r"purist|hedonist|loyalist|nationalist|moralist|centrist|leftist|pacifist|populist|"
    r"specialist|finalist|comedian|guardian|civilian|median|custodian|thespian"
)
# Lower case only: "I'm a Canadian" is a nationality, not a job.
SUFFIX_ROLE = rf"(?P<x>(?!(?:{_NOT_ROLES})\b)(?-i:[a-z]{{4,}}(?:ician|ologist|ist|ian)))"
ROLE = rf"(?P<x>(?:[\w+#./]+[\s-]+){{0,4}}?(?:{ROLES})s?(?:[\s-]+(?:{ROLES})s?\b)?)"
ZONE = (
    r"(?P<x>[A-Z][a-z]+/[A-Z][\w/]+|UTC\s*[+-]\s*\d{1,2}(?::\d\d)?|GMT\s*[+-]\s*\d{1,2}|"
    r"(?:Pacific|Eastern|Central|Mountain|Atlantic|Central\s+European|Eastern\s+European|"
    r"Western\s+European)(?=\s+time)|(?-i:[A-Z]{2,5})(?![\w-]))"
)
DIET = (
    r"(?P<x>vegetarian|vegan|pescatarian|flexitarian|plant[- ]based|dairy[- ]free|omnivore|"
    r"gluten[- ]free|lactose[- ]intolerant|"
    r"keto|halal|kosher|teetotal|sober|celiac|coeliac)"
)


def ci(pattern: str) -> str:
    """Case-insensitive words around case-sensitive names and places."""
    return f"(?i:{pattern})"


WE_I = ci(r"\b(?:I|we)")
ADVS = ci(
    r"(?:\s+(?:just|recently|finally|currently|now|still|also|have|has|had|am|are|been|"
    r"officially|actually|eventually))*"
)
