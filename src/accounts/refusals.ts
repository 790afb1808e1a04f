import { DomainError } from '../shared/errors.ts';

/** The refusals both account stores and the services share. */
export function memberNotFound(): DomainError {
  return new DomainError('member_not_found', 'no member with this id in the project');
}

export function lastOwner(): DomainError {
  return new DomainError('last_owner', 'this would leave a project without an owner: make someone else owner first');
}

export function alreadyMember(): DomainError {
  return new DomainError('already_member', 'this email belongs to a member of the project already: change their role instead');
}

export function invitationInvalid(): DomainError {
  return new DomainError('invitation_invalid', 'this link is unknown, used already or expired (links last 72 hours and work once): ask for a new one');
}

export function invalidCredentials(): DomainError {
  return new DomainError('invalid_credentials', 'the email or the password is wrong');
}
