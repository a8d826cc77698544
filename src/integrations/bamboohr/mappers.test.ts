import { describe, expect, it } from 'vitest'
import {
  fromBamboohrBenefit,
  fromBamboohrCompany,
  fromBamboohrEmployee,
  fromBamboohrGroupOption,
  fromBamboohrLocationOption,
  optionIdsOf,
  parseBamboohrDate,
  parseBamboohrMoney,
} from './mappers.js'
import type { BamboohrEmployee } from './types.js'

// Shaped like a row of POST /v1/reports/custom (BambooHR/bhr-api-php specs/public.yaml,
// RequestCustomReportResponse): every value a string, empty dates as 0000-00-00.
const row: BamboohrEmployee = {
  id: '42',
  employeeNumber: '0042',
  firstName: 'Ava',
  lastName: 'Nguyen',
  displayName: 'Ava Nguyen',
  jobTitle: 'Engineering Manager',
  workEmail: 'ava@acme.example',
  homeEmail: null,
  workPhone: '801-555-0100',
  mobilePhone: '',
  dateOfBirth: '1990-04-02',
  gender: 'Female',
  maritalStatus: 'Married',
  hireDate: '2021-06-01',
  terminationDate: '0000-00-00',
  status: 'Active',
  employmentHistoryStatus: 'Full-Time',
  department: 'Engineering',
  division: 'North America',
  location: 'Lindon, Utah',
  supervisorEId: '7',
  address1: '335 S 560 W',
  city: 'Lindon',
  state: 'UT',
  zipcode: '84042',
  country: 'United States',
  payRate: '120000.00 USD',
  payType: 'Salary',
  paidPer: 'Year',
  lastChanged: '2024-05-01T10:00:00+00:00',
}

describe('BambooHR employees', () => {
  it('map a report row, dates at midnight UTC and the empty date left out', () => {
    const e = fromBamboohrEmployee(row, 'acme')
    expect(e).toMatchObject({
      id: '42',
      company_id: 'acme',
      employee_number: '0042',
      name: 'Ava Nguyen',
      first_name: 'Ava',
      last_name: 'Nguyen',
      title: 'Engineering Manager',
      emails: [{ email: 'ava@acme.example', type: 'WORK' }],
      telephones: [{ telephone: '801-555-0100', type: 'WORK' }],
      gender: 'FEMALE',
      marital_status: 'MARRIED',
      employment_status: 'ACTIVE',
      employment_type: 'FULL_TIME',
      manager_id: '7',
      groups: [
        { name: 'Engineering', type: 'DEPARTMENT' },
        { name: 'North America', type: 'DIVISION' },
      ],
      locations: [{ name: 'Lindon, Utah' }],
      address: { address1: '335 S 560 W', city: 'Lindon', region: 'UT', postal_code: '84042' },
      compensation: [{ amount: 120000, currency: 'USD', frequency: 'YEAR', type: 'SALARY', notes: 'Salary' }],
      raw: row,
    })
    expect(e.date_of_birth).toEqual(new Date('1990-04-02T00:00:00Z'))
    expect(e.hired_at).toEqual(new Date('2021-06-01T00:00:00Z'))
    expect(e.terminated_at).toBeUndefined()
    expect(e.updated_at).toEqual(new Date('2024-05-01T10:00:00Z'))
  })

  it('leave out values BambooHR accounts name their own way', () => {
    const e = fromBamboohrEmployee(
      {
        id: '3',
        status: 'Inactive',
        employmentHistoryStatus: 'Terminated',
        gender: '',
        payPer: 'Pay Period',
        payRate: '25.50 USD',
      },
      'acme',
    )
    expect(e.employment_status).toBe('INACTIVE')
    expect(e.employment_type).toBeUndefined()
    expect(e.gender).toBeUndefined()
    expect(e.compensation).toEqual([{ amount: 25.5, currency: 'USD', type: 'SALARY' }])
    // An account answering the other spelling still says what the rate is per.
    expect(
      fromBamboohrEmployee({ id: '4', payRate: '25.50 USD', payPer: 'Hour' }, 'acme').compensation,
    ).toEqual([{ amount: 25.5, currency: 'USD', frequency: 'HOUR', type: 'SALARY' }])
    expect(e.name).toBeUndefined()
  })

  it('leave out a termination that ended an earlier employment of a rehired employee', () => {
    const rehired = { id: '5', status: 'Active', hireDate: '2023-03-01', terminationDate: '2022-08-31' }
    expect(fromBamboohrEmployee(rehired, 'acme')).toMatchObject({
      employment_status: 'ACTIVE',
      hired_at: new Date('2023-03-01T00:00:00Z'),
    })
    expect(fromBamboohrEmployee(rehired, 'acme').terminated_at).toBeUndefined()
    const leaving = { ...rehired, terminationDate: '2099-01-31' }
    expect(fromBamboohrEmployee(leaving, 'acme').terminated_at).toEqual(new Date('2099-01-31T00:00:00Z'))
  })

  it('read dates and money strictly', () => {
    expect(parseBamboohrDate('0000-00-00')).toBeUndefined()
    expect(parseBamboohrDate('2024-13-45')).toBeUndefined()
    expect(parseBamboohrDate('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z')
    expect(parseBamboohrMoney('1,250.00 EUR')).toEqual({ amount: 1250, currency: 'EUR' })
    expect(parseBamboohrMoney('$8.25')).toBeUndefined()
  })
})

describe('BambooHR company, lists and benefits', () => {
  it('map the company information onto the one company, its id the subdomain', () => {
    const info = {
      legalName: 'Acme Inc.',
      displayName: 'Acme',
      address: { line1: '1 Main St', line2: '', city: 'Provo', state: 'UT', zip: '84601' },
      phone: '801-555-0199',
    }
    expect(fromBamboohrCompany(info, 'acme')).toEqual({
      id: 'acme',
      name: 'Acme',
      legal_name: 'Acme Inc.',
      address: { address1: '1 Main St', city: 'Provo', region_code: 'UT', postal_code: '84601' },
      raw: info,
    })
  })

  it('map list options onto groups named by their list, and locations', () => {
    const option = { id: 18, name: 'Sales', archived: 'yes', createdDate: '2023-01-15T00:00:00+00:00' }
    expect(fromBamboohrGroupOption('department', option, 'acme')).toMatchObject({
      id: 'department:18',
      name: 'Sales',
      type: 'DEPARTMENT',
      is_active: false,
      company_id: 'acme',
      created_at: new Date('2023-01-15T00:00:00Z'),
    })
    expect(fromBamboohrLocationOption({ id: 3, name: 'Remote', archived: 'no' }, 'acme')).toMatchObject({
      id: '3',
      name: 'Remote',
      is_active: true,
    })
  })

  it("give an employee's department, division and location the option id, where one option has the name", () => {
    const ids = optionIdsOf([
      {
        fieldId: 4,
        alias: 'department',
        name: 'Department',
        options: [
          { id: 1, name: 'Sales', archived: 'no' },
          { id: 2, name: 'Ops', archived: 'yes' },
          { id: 3, name: 'Ops', archived: 'no' },
          { id: 4, name: 'Legal', archived: 'yes' },
          { id: 5, name: 'Legal', archived: 'yes' },
        ],
      },
      {
        fieldId: 18,
        alias: 'location',
        name: 'Location',
        options: [{ id: 9, name: 'Berlin', archived: 'no' }],
      },
    ])
    const e = fromBamboohrEmployee(
      { id: '1', department: 'Ops', division: 'EMEA', location: 'Berlin' } as BamboohrEmployee,
      'acme',
      ids,
    )
    expect(e.groups).toEqual([
      { id: 'department:3', name: 'Ops', type: 'DEPARTMENT' },
      { name: 'EMEA', type: 'DIVISION' },
    ])
    expect(e.locations).toEqual([{ id: '9', name: 'Berlin' }])
    expect(ids('department', 'Sales')).toBe('department:1')
    expect(ids('department', 'Legal')).toBeUndefined()
  })

  it('group options of one name in one pass, however many there are', () => {
    // 30,000 archived options of one name and one live: a list copied per option held the event loop for
    // tens of seconds over such an answer (a connection's own api_url); grouped in one pass, the live one wins.
    const options = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: 'Ops', archived: 'yes' }))
    options.push({ id: 30_000, name: 'Ops', archived: 'no' })
    const ids = optionIdsOf([{ fieldId: 4, alias: 'department', name: 'Department', options }])
    expect(ids('department', 'Ops')).toBe('department:30000')
  })

  it('map benefit plans, typed only where the type means the same', () => {
    const now = new Date('2024-06-01T00:00:00Z')
    const plan = { id: '12', name: 'Dental PPO', type: 'dental', startDate: '2024-01-01', endDate: null }
    expect(fromBamboohrBenefit(plan, 'acme', now)).toMatchObject({
      id: '12',
      type: 'DENTAL',
      is_active: true,
    })
    const ended = { ...plan, type: 'disability', endDate: '2024-05-31' }
    expect(fromBamboohrBenefit(ended, 'acme', now)).toMatchObject({ is_active: false })
    expect(fromBamboohrBenefit(ended, 'acme', now).type).toBeUndefined()
  })
})
