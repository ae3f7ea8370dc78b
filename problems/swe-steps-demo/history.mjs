// The demo repository's history: each change gives the files it writes (null deletes one).
// Modules are assembled from named parts so each pull request states only what it adds.

const moneyHead = `"""Amounts of money as integer cents, parsed from and formatted to text."""
`;

const parse = {
  v1: `

def parse_amount(text):
    """Parse text such as "12.50" or "-3" into integer cents."""
    text = text.strip()
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    whole, _, frac = text.partition(".")
    if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > 2:
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole) * 100 + int(frac.ljust(2, "0"))
    return -cents if negative else cents
`,
  currency: `

def parse_amount(text):
    """Parse text such as "12.50", "-3" or "$4.20" into integer cents."""
    text = text.strip()
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    if text.startswith("$"):
        text = text[1:]
    whole, _, frac = text.partition(".")
    if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > 2:
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole) * 100 + int(frac.ljust(2, "0"))
    return -cents if negative else cents
`,
  grouped: `

def parse_amount(text):
    """Parse text such as "12.50", "-3", "$4.20" or "1,234.50" into integer cents."""
    text = text.strip()
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    if text.startswith("$"):
        text = text[1:]
    whole, _, frac = text.partition(".")
    whole = whole.replace(",", "")
    if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > 2:
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole) * 100 + int(frac.ljust(2, "0"))
    return -cents if negative else cents
`,
  tidy: `

def _split_sign(text):
    """The text without a leading minus sign, and whether it had one."""
    if text.startswith("-"):
        return text[1:], True
    return text, False


def parse_amount(text):
    """Parse text such as "12.50", "-3", "$4.20" or "1,234.50" into integer cents."""
    text, negative = _split_sign(text.strip())
    text = text.removeprefix("$")
    whole, _, frac = text.partition(".")
    whole = whole.replace(",", "")
    if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > 2:
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole) * 100 + int(frac.ljust(2, "0"))
    return -cents if negative else cents
`,
};

const format = {
  v1: `

def format_amount(cents):
    """Format integer cents as text with two decimals."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"
`,
  grouped: `

def format_amount(cents):
    """Format integer cents as text with two decimals, grouping thousands with commas."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100:,}.{cents % 100:02d}"
`,
};

const legacyRound = `

def legacy_round(value):
    """Round a float amount to cents (kept for old callers)."""
    return int(round(value * 100))
`;

const money = (...parts) => moneyHead + parts.join('');

const moneyTestHead = `import pytest

from ledger.money import format_amount, parse_amount
`;

const moneyTests = {
  base: `

def test_parse_whole():
    assert parse_amount("12") == 1200


def test_parse_cents():
    assert parse_amount("12.5") == 1250
    assert parse_amount("0.07") == 7


def test_parse_negative():
    assert parse_amount("-3.25") == -325


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_amount("twelve")


def test_format():
    assert format_amount(1250) == "12.50"
    assert format_amount(-7) == "-0.07"
`,
  legacy: `

def test_legacy_round():
    from ledger.money import legacy_round

    assert legacy_round(2.5) == 250
`,
  currency: `

def test_parse_currency_sign():
    assert parse_amount("$4.20") == 420
    assert parse_amount("-$1") == -100


def test_round_trip():
    for cents in (0, 7, 1250, -325, 123456789):
        assert parse_amount(format_amount(cents)) == cents
`,
  grouped: `

def test_format_groups_thousands():
    assert format_amount(123456789) == "1,234,567.89"
    assert format_amount(-100000) == "-1,000.00"


def test_parse_grouped():
    assert parse_amount("1,234.50") == 123450
`,
};

const moneyTest = (...parts) => moneyTestHead + parts.join('');

const bookHead = `"""The ledger: an ordered list of entries moving cents between accounts."""
`;

const bookImports = {
  plain: `from dataclasses import dataclass
`,
  csv: `import csv
import io
from dataclasses import dataclass
`,
};

const bookClasses = `

@dataclass(frozen=True)
class Entry:
    """One movement of money into an account (negative amounts take money out)."""

    account: str
    cents: int
    memo: str = ""


class Ledger:
    """Entries in the order they were added."""

    def __init__(self):
        self.entries = []

    def add(self, account, cents, memo=""):
        """Record an entry and return it."""
        if not account:
            raise ValueError("an entry needs an account")
        entry = Entry(account, cents, memo)
        self.entries.append(entry)
        return entry
`;

const ledgerMethods = {
  balance: `
    def balance(self, account):
        """The sum of the account's entries, in cents."""
        return sum(entry.cents for entry in self.entries if entry.account == account)
`,
  transfer: `
    def transfer(self, source, target, cents, memo=""):
        """Move a positive amount from one account to another as two entries."""
        if cents <= 0:
            raise ValueError("a transfer moves a positive amount")
        return self.add(source, -cents, memo), self.add(target, cents, memo)
`,
  accounts: `
    def accounts(self):
        """The names of the accounts in use, sorted."""
        return sorted({entry.account for entry in self.entries})
`,
  toCsv: `
    def to_csv(self):
        """The entries as CSV text with an account,cents,memo header."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\\n")
        writer.writerow(["account", "cents", "memo"])
        for entry in self.entries:
            writer.writerow([entry.account, entry.cents, entry.memo])
        return out.getvalue()
`,
  fromCsv: `
    @classmethod
    def from_csv(cls, text):
        """A ledger holding the entries of CSV text written by to_csv."""
        ledger = cls()
        for row in csv.DictReader(io.StringIO(text)):
            ledger.add(row["account"], int(row["cents"]), row["memo"])
        return ledger
`,
  find: `
    def find(self, text):
        """The entries whose memo contains the text, ignoring case."""
        needle = text.lower()
        return [entry for entry in self.entries if needle in entry.memo.lower()]
`,
  close: `
    def close(self, account, into="equity"):
        """Move the account's balance into another account; the closed account ends at zero."""
        left = self.balance(account)
        if left > 0:
            self.transfer(account, into, left, f"close {account}")
        elif left < 0:
            self.transfer(into, account, -left, f"close {account}")
        return left
`,
  summary: `
    def summary(self):
        """Each account's balance, keyed by account name."""
        return {account: self.balance(account) for account in self.accounts()}
`,
  summaryByBalance: `
    def summary(self):
        """Each account's balance, largest balance first."""
        balances = {account: self.balance(account) for account in self.accounts()}
        return dict(sorted(balances.items(), key=lambda item: item[1]))
`,
};

function book(imports, ...methods) {
  return `${bookHead}${bookImports[imports]}${bookClasses}${methods.map((m) => ledgerMethods[m]).join('')}`;
}

const bookTestHead = `import pytest

from ledger.book import Entry, Ledger
`;

const bookTests = {
  add: `

def test_add_returns_entry():
    ledger = Ledger()
    assert ledger.add("cash", 500, "float") == Entry("cash", 500, "float")
    assert len(ledger.entries) == 1


def test_add_needs_account():
    with pytest.raises(ValueError):
        Ledger().add("", 5)
`,
  balance: `

def test_balance_sums_one_account():
    ledger = Ledger()
    ledger.add("cash", 500)
    ledger.add("bank", 900)
    ledger.add("cash", -120)
    assert ledger.balance("cash") == 380


def test_balance_of_unknown_account_is_zero():
    assert Ledger().balance("nowhere") == 0
`,
  transfer: `

def test_transfer_moves_money():
    ledger = Ledger()
    ledger.add("bank", 1000)
    ledger.transfer("bank", "cash", 250, "atm")
    assert ledger.balance("bank") == 750
    assert ledger.balance("cash") == 250


def test_transfer_rejects_non_positive():
    with pytest.raises(ValueError):
        Ledger().transfer("bank", "cash", 0)
`,
  accounts: `

def test_accounts_sorted_unique():
    ledger = Ledger()
    for account in ("rent", "cash", "rent", "bank"):
        ledger.add(account, 1)
    assert ledger.accounts() == ["bank", "cash", "rent"]
`,
  equality: `

def test_entries_compare_by_value():
    assert Entry("cash", 5) == Entry("cash", 5, "")
    assert Entry("cash", 5) != Entry("cash", 6)
`,
};

const bookTest = (...parts) => bookTestHead + parts.map((p) => bookTests[p]).join('');

const exportTests = {
  toCsv: `

def test_to_csv_header_and_rows():
    ledger = Ledger()
    ledger.add("cash", 500, "float, petty")
    assert ledger.to_csv() == 'account,cents,memo\\ncash,500,"float, petty"\\n'
`,
  fromCsv: `

def test_from_csv_round_trip():
    ledger = Ledger()
    ledger.add("cash", 500, "float, petty")
    ledger.add("bank", -20, "")
    again = Ledger.from_csv(ledger.to_csv())
    assert again.entries == ledger.entries


def test_to_csv_empty_ledger():
    assert Ledger().to_csv() == "account,cents,memo\\n"
`,
};

const exportTest = (...parts) =>
  `from ledger.book import Ledger
${parts.map((p) => exportTests[p]).join('')}`;

const budget = {
  v1: `"""Spending limits for an account."""


class Budget:
    """A limit on how much an account may spend, in cents."""

    def __init__(self, ledger, account, limit):
        self.ledger = ledger
        self.account = account
        self.limit = limit

    def spent(self):
        """Cents taken out of the account so far."""
        return -sum(e.cents for e in self.ledger.entries if e.account == self.account and e.cents < 0)

    def remaining(self):
        """Cents left before the limit is reached (never below zero)."""
        return max(self.limit - self.spent(), 0)
`,
  overspent: `

    @property
    def overspent(self):
        """Whether spending has gone past the limit."""
        return self.spent() > self.limit
`,
};

const budgetTests = {
  v1: `from ledger.book import Ledger
from ledger.budget import Budget


def test_remaining_counts_spending_only():
    ledger = Ledger()
    ledger.add("food", 10000)
    ledger.add("food", -2500)
    assert Budget(ledger, "food", 4000).remaining() == 1500


def test_remaining_stops_at_zero():
    ledger = Ledger()
    ledger.add("food", -5000)
    assert Budget(ledger, "food", 4000).remaining() == 0
`,
  overspent: `

def test_overspent():
    ledger = Ledger()
    ledger.add("food", -4001)
    assert Budget(ledger, "food", 4000).overspent
    assert not Budget(ledger, "food", 5000).overspent
`,
};

const findTests = {
  find: `

def test_find_matches_memo_ignoring_case():
    ledger = Ledger()
    ledger.add("cash", 5, "Coffee")
    ledger.add("cash", 7, "tea")
    assert [entry.memo for entry in ledger.find("coff")] == ["Coffee"]
`,
  close: `

def test_close_moves_balance_to_equity():
    ledger = Ledger()
    ledger.add("cash", 300)
    assert ledger.close("cash") == 300
    assert ledger.balance("cash") == 0
    assert ledger.balance("equity") == 300


def test_close_an_overdrawn_account():
    ledger = Ledger()
    ledger.add("card", -80)
    ledger.close("card")
    assert ledger.balance("card") == 0
`,
  summary: `

def test_summary_per_account():
    ledger = Ledger()
    ledger.add("cash", 300)
    ledger.add("bank", 50)
    assert ledger.summary() == {"bank": 50, "cash": 300}
`,
  summaryOrder: `

def test_summary_largest_first():
    ledger = Ledger()
    ledger.add("cash", 300)
    ledger.add("bank", 50)
    assert list(ledger.summary()) == ["cash", "bank"]
`,
};

const queryTest = (...parts) =>
  `from ledger.book import Ledger
${parts.map((p) => findTests[p]).join('')}`;

const init = (version) => `"""A small ledger that keeps money as integer cents."""

from ledger.money import format_amount, parse_amount

__all__ = ["format_amount", "parse_amount"]
__version__ = "${version}"
`;

const readme = (extra = '') => `# ledger

A small library that keeps money as integer cents: parse and format amounts, record entries
between accounts, and ask for balances.

    python3 -m pytest
${extra}`;

export const history = [
  {
    kind: 'commit',
    date: '2024-12-20T09:00:00Z',
    message: 'Start the ledger library: amounts as integer cents\n',
    files: {
      'README.md': readme(),
      'ledger/__init__.py': init('0.1.0'),
      'ledger/money.py': money(parse.v1, format.v1, legacyRound),
      'tests/test_money.py': moneyTest(moneyTests.base, moneyTests.legacy),
    },
  },
  {
    kind: 'pr',
    number: 1,
    style: 'squash',
    who: 'alice',
    date: '2025-01-06T10:00:00Z',
    title: 'Add a ledger of entries',
    body: 'Entries record cents moving into an account; the ledger keeps them in order.',
    files: { 'ledger/book.py': book('plain'), 'tests/test_book.py': bookTest('add') },
  },
  {
    kind: 'pr',
    number: 2,
    style: 'merge',
    who: 'alice',
    branch: 'balance',
    date: '2025-01-09T11:00:00Z',
    title: 'Add Ledger.balance',
    body: "A balance is the sum of an account's entries.",
    files: {
      'ledger/book.py': book('plain', 'balance'),
      'tests/test_book.py': bookTest('add', 'balance'),
    },
  },
  {
    kind: 'pr',
    number: 3,
    style: 'squash',
    date: '2025-01-10T09:30:00Z',
    title: 'Describe entries in the README',
    body: 'Documentation only.',
    files: {
      'README.md': readme('\nAn entry moves cents into an account; negative cents take them out.\n'),
      'docs/entries.md': '# Entries\n\nAn entry has an account, an amount in cents and a memo.\n',
    },
  },
  {
    kind: 'pr',
    number: 4,
    style: 'squash',
    who: 'bob',
    date: '2025-01-14T15:00:00Z',
    title: 'Accept amounts with a currency sign',
    body: 'parse_amount now reads "$4.20" and "-$1". A round-trip test pins parse and format together.',
    files: {
      'ledger/money.py': money(parse.currency, format.v1, legacyRound),
      'tests/test_money.py': moneyTest(moneyTests.base, moneyTests.legacy, moneyTests.currency),
    },
  },
  {
    kind: 'pr',
    number: 5,
    style: 'merge',
    who: 'bob',
    branch: 'ci',
    date: '2025-01-15T08:00:00Z',
    title: 'Run the tests on every push',
    body: 'A CI workflow.',
    files: {
      '.github/workflows/tests.yml':
        'name: tests\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: python3 -m pytest\n',
    },
  },
  {
    kind: 'pr',
    number: 6,
    style: 'squash',
    who: 'carol',
    date: '2025-01-20T13:00:00Z',
    title: 'Move money between accounts',
    body: 'Ledger.transfer records the two sides of a transfer.',
    files: {
      'ledger/book.py': book('plain', 'balance', 'transfer'),
      'tests/test_book.py': bookTest('add', 'balance', 'transfer'),
    },
  },
  {
    kind: 'pr',
    number: 7,
    style: 'merge',
    who: 'bob',
    branch: 'accounts',
    date: '2025-01-23T16:00:00Z',
    title: 'List the accounts in use',
    body: 'Ledger.accounts gives the sorted account names.',
    files: {
      'ledger/book.py': book('plain', 'balance', 'transfer', 'accounts'),
      'tests/test_book.py': bookTest('add', 'balance', 'transfer', 'accounts'),
    },
  },
  {
    kind: 'pr',
    number: 8,
    style: 'squash',
    who: 'alice',
    date: '2025-01-28T10:00:00Z',
    title: 'Group thousands when formatting amounts',
    body: 'format_amount writes 1,234,567.89; parse_amount reads grouped amounts back.',
    files: {
      'ledger/money.py': money(parse.grouped, format.grouped, legacyRound),
      'tests/test_money.py': moneyTest(
        moneyTests.base,
        moneyTests.legacy,
        moneyTests.currency,
        moneyTests.grouped,
      ),
    },
  },
  {
    kind: 'pr',
    number: 9,
    style: 'squash',
    date: '2025-02-03T09:00:00Z',
    title: 'Tidy the amount parser',
    body: 'No behaviour change.',
    files: { 'ledger/money.py': money(parse.tidy, format.grouped, legacyRound) },
  },
  {
    kind: 'pr',
    number: 10,
    style: 'merge',
    who: 'carol',
    branch: 'export',
    date: '2025-02-06T14:00:00Z',
    title: 'Export the ledger as CSV',
    body: 'Ledger.to_csv writes an account,cents,memo table.',
    files: {
      'ledger/book.py': book('csv', 'balance', 'transfer', 'accounts', 'toCsv'),
      'tests/test_export.py': exportTest('toCsv'),
    },
  },
  {
    kind: 'pr',
    number: 11,
    style: 'squash',
    who: 'carol',
    date: '2025-02-10T11:00:00Z',
    title: 'Read a ledger back from CSV',
    body: 'Ledger.from_csv is the inverse of to_csv.',
    files: {
      'ledger/book.py': book('csv', 'balance', 'transfer', 'accounts', 'toCsv', 'fromCsv'),
      'tests/test_export.py': exportTest('toCsv', 'fromCsv'),
    },
  },
  {
    kind: 'pr',
    number: 12,
    style: 'squash',
    who: 'dave',
    date: '2025-02-13T10:00:00Z',
    title: 'Add budgets and drop legacy_round',
    body: 'A Budget limits what an account may spend. legacy_round had no callers left.',
    files: {
      'ledger/budget.py': budget.v1,
      'ledger/money.py': money(parse.tidy, format.grouped),
      'tests/test_budget.py': budgetTests.v1,
      'tests/test_money.py': moneyTest(moneyTests.base, moneyTests.currency, moneyTests.grouped),
    },
  },
  {
    kind: 'pr',
    number: 13,
    style: 'merge',
    who: 'dave',
    branch: 'overspent',
    date: '2025-02-18T12:00:00Z',
    title: 'Tell when a budget is overspent',
    body: 'Budget.overspent is true once spending passes the limit.',
    files: {
      'ledger/budget.py': budget.v1 + budget.overspent,
      'tests/test_budget.py': budgetTests.v1 + budgetTests.overspent,
    },
  },
  {
    kind: 'pr',
    number: 14,
    style: 'squash',
    date: '2025-02-20T09:00:00Z',
    title: 'Test that entries compare by value',
    body: 'Tests only.',
    files: { 'tests/test_book.py': bookTest('add', 'balance', 'transfer', 'accounts', 'equality') },
  },
  {
    kind: 'commit',
    date: '2025-02-21T17:00:00Z',
    message: 'Release 0.2.0\n',
    files: { 'ledger/__init__.py': init('0.2.0') },
  },
  {
    kind: 'pr',
    number: 15,
    style: 'merge',
    who: 'erin',
    branch: 'find',
    date: '2025-03-03T10:00:00Z',
    title: 'Find entries by memo',
    body: 'Ledger.find searches memos without regard to case.',
    files: {
      'ledger/book.py': book('csv', 'balance', 'transfer', 'accounts', 'toCsv', 'fromCsv', 'find'),
      'tests/test_query.py': queryTest('find'),
    },
  },
  {
    kind: 'pr',
    number: 16,
    style: 'squash',
    who: 'erin',
    date: '2025-03-06T15:00:00Z',
    title: 'Close an account',
    body: "Ledger.close moves an account's balance into equity.",
    files: {
      'ledger/book.py': book('csv', 'balance', 'transfer', 'accounts', 'toCsv', 'fromCsv', 'find', 'close'),
      'tests/test_query.py': queryTest('find', 'close'),
    },
  },
  {
    kind: 'pr',
    number: 17,
    style: 'squash',
    who: 'bob',
    date: '2025-03-11T11:00:00Z',
    title: 'Summarise balances per account',
    body: 'Ledger.summary maps each account to its balance.',
    files: {
      'ledger/book.py': book(
        'csv',
        'balance',
        'transfer',
        'accounts',
        'toCsv',
        'fromCsv',
        'find',
        'close',
        'summary',
      ),
      'tests/test_query.py': queryTest('find', 'close', 'summary'),
    },
  },
  {
    kind: 'pr',
    number: 18,
    style: 'squash',
    who: 'bob',
    date: '2025-03-20T10:00:00Z',
    title: 'Order the summary by balance',
    body: 'The largest balance comes first.',
    files: {
      'ledger/book.py': book(
        'csv',
        'balance',
        'transfer',
        'accounts',
        'toCsv',
        'fromCsv',
        'find',
        'close',
        'summaryByBalance',
      ),
      'tests/test_query.py': queryTest('find', 'close', 'summaryOrder'),
    },
  },
  {
    kind: 'pr',
    number: 19,
    style: 'squash',
    date: '2025-04-02T10:00:00Z',
    title: 'Export budgets as CSV',
    body: 'After the window.',
    files: {
      'ledger/budget.py': `${budget.v1}${budget.overspent}

    def to_csv(self):
        """The budget as one CSV line: account,limit,spent."""
        return f"{self.account},{self.limit},{self.spent()}\\n"
`,
      'tests/test_budget.py': `${budgetTests.v1}${budgetTests.overspent}

def test_budget_to_csv():
    ledger = Ledger()
    ledger.add("food", -100)
    assert Budget(ledger, "food", 4000).to_csv() == "food,4000,100\\n"
`,
    },
  },
];
