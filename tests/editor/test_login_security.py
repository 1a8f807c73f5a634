"""Sign-in attacks: password guessing on both sign-in pages, weak passwords.

A brute force is locked out per username and address together (django-axes): the attacker's
address is refused even with the right password, while the same user signing in from anywhere
else still gets in, so nobody can lock the admin out from afar. Bearer tokens never go through
the sign-in pages and keep working.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from editor.workspaces.tokens import create_token
from tests.editor.conftest import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "pw-secret-123"  # make_user's
ATTACKER = "203.0.113.7"
ELSEWHERE = "198.51.100.20"
SIGN_IN_PAGES = ["/accounts/login/", "/admin/login/"]


def sign_in(page: str, username: str, password: str, address: str):
    return Client(REMOTE_ADDR=address).post(page, {"username": username, "password": password})


def signed_in(response) -> bool:
    return response.status_code == 302 and "sessionid" in response.cookies


@pytest.fixture
def admin_user(db):
    return make_user("admin", is_staff=True, is_superuser=True)


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_twenty_wrong_passwords_lock_that_address_out_even_with_the_right_one(page, admin_user):
    answers = [sign_in(page, "admin", f"guess-{n}", ATTACKER) for n in range(20)]
    assert answers[0].status_code == 200  # an ordinary "did not match" first
    assert answers[-1].status_code == 429

    locked = sign_in(page, "admin", PASSWORD, ATTACKER)
    assert locked.status_code == 429 and not signed_in(locked)
    assert b"Too many sign-in attempts" in locked.content


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_the_locked_out_user_still_signs_in_from_another_address(page, admin_user):
    for n in range(20):
        sign_in(page, "admin", f"guess-{n}", ATTACKER)
    assert signed_in(sign_in(page, "admin", PASSWORD, ELSEWHERE))


def test_other_users_still_sign_in_from_the_locked_out_address(owner, admin_user):
    for n in range(20):
        sign_in("/accounts/login/", "admin", f"guess-{n}", ATTACKER)
    assert signed_in(sign_in("/accounts/login/", "owner", PASSWORD, ATTACKER))


def test_a_bearer_token_keeps_working_for_a_locked_out_user(admin_user):
    key = create_token(admin_user, "ci")
    for n in range(20):
        sign_in("/accounts/login/", "admin", f"guess-{n}", ATTACKER)
    client = Client(REMOTE_ADDR=ATTACKER)
    answer = client.get("/api/pipelines", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200


@pytest.mark.parametrize(
    ("password", "complaint"),
    [
        ("short-1a", "too short"),
        ("password123", "too common"),
        ("8329104756213", "entirely numeric"),
        ("MargaretHamilton", "too similar"),
    ],
    ids=["short", "common", "numeric", "like-the-username"],
)
def test_weak_passwords_are_refused(password, complaint):
    user = make_user("margaret.hamilton")
    with pytest.raises(ValidationError, match=complaint):
        validate_password(password, user)


def test_a_long_uncommon_password_is_accepted(owner):
    validate_password("correct horse battery staple", owner)
