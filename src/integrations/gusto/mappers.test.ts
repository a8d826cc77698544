import { describe, expect, it } from 'vitest'
import {
  fromGustoCompany,
  fromGustoCompanyBenefit,
  fromGustoDepartment,
  fromGustoEmployee,
  fromGustoEmployeeBenefit,
  fromGustoGarnishment,
  fromGustoLocation,
  fromGustoPayslip,
  money,
  parsePayslipId,
} from './mappers.js'
import type { GustoEmployee } from './types.js'

// Shaped like the `Employee` example of Gusto's OpenAPI (version 2025-06-15).
const employee: GustoEmployee = {
  uuid: 'd7282d99-ab6b-42f5-ba45-f4a670e886a8',
  first_name: 'Boaty',
  middle_initial: null,
  last_name: 'Koss',
  email: 'keena.feest@kiehn.co.uk',
  work_email: 'boaty@acme.example',
  company_uuid: 'e904cc79-818a-4da8-9d37-0be0a86fdda8',
  manager_uuid: null,
  current_employment_status: 'full_time',
  preferred_first_name: 'Bo',
  department_uuid: 'dep-1',
  department: 'Engineering',
  employee_code: '46f036',
  terminated: true,
  terminations: [{ effective_date: '2025-03-31', active: true }],
  date_of_birth: '1990-01-20',
  hired_at: '2024-06-09',
  jobs: [
    {
      uuid: 'job-1',
      primary: true,
      title: 'Captain',
      rate: '80000.00',
      payment_unit: 'Year',
      location_uuid: 'loc-1',
      hire_date: '2024-06-09',
    },
  ],
}

describe('Gusto employees and organization', () => {
  it('map an employee, preferred first name in name, the primary job for title, pay and location', () => {
    expect(fromGustoEmployee(employee)).toMatchObject({
      id: employee.uuid,
      first_name: 'Boaty',
      last_name: 'Koss',
      name: 'Bo Koss',
      emails: [
        { email: 'boaty@acme.example', type: 'WORK' },
        { email: 'keena.feest@kiehn.co.uk', type: 'HOME' },
      ],
      company_id: 'e904cc79-818a-4da8-9d37-0be0a86fdda8',
      employee_number: '46f036',
      title: 'Captain',
      employment_status: 'INACTIVE',
      employment_type: 'FULL_TIME',
      hired_at: new Date('2024-06-09T00:00:00Z'),
      terminated_at: new Date('2025-03-31T00:00:00Z'),
      date_of_birth: new Date('1990-01-20T00:00:00Z'),
      groups: [{ id: 'dep-1', name: 'Engineering', type: 'DEPARTMENT' }],
      locations: [{ id: 'loc-1' }],
      compensation: [{ amount: 80000, currency: 'USD', frequency: 'YEAR', type: 'SALARY' }],
    })
  })

  it('give the employee phone without a kind, as Gusto gives none (Employee.phone is a bare string)', () => {
    expect(fromGustoEmployee({ ...employee, phone: '2065550100' }).telephones).toEqual([
      { telephone: '2065550100' },
    ])
  })

  it('leave out what has no unified meaning: variable hours, per-paycheck rates', () => {
    const e = fromGustoEmployee({
      ...employee,
      terminated: false,
      current_employment_status: 'variable',
      jobs: [{ uuid: 'j', rate: '500.00', payment_unit: 'Paycheck' }],
    })
    expect(e.employment_type).toBeUndefined()
    expect(e.terminated_at).toBeUndefined()
    expect(e.compensation).toEqual([{ amount: 500, currency: 'USD', type: 'SALARY' }])
  })

  it('keep an employee working out a scheduled termination ACTIVE, and date the latest termination', () => {
    const scheduled = fromGustoEmployee({
      ...employee,
      terminations: [{ effective_date: '2099-01-31', active: false }],
    })
    expect(scheduled.employment_status).toBe('ACTIVE')
    expect(scheduled.terminated_at).toEqual(new Date('2099-01-31T00:00:00Z'))
    const rehiredAndLeft = fromGustoEmployee({
      ...employee,
      terminations: [
        { effective_date: '2021-05-01', active: true },
        { effective_date: '2025-03-31', active: true },
      ],
    })
    expect(rehiredAndLeft.employment_status).toBe('INACTIVE')
    expect(rehiredAndLeft.terminated_at).toEqual(new Date('2025-03-31T00:00:00Z'))
  })

  it('map company, locations and departments', () => {
    const company = fromGustoCompany({
      uuid: 'c-1',
      name: 'Acme, LLC',
      trade_name: 'Acme',
      join_date: '2020-02-01',
      locations: [
        { street_1: '1 Main', city: 'Austin', state: 'TX', zip: '78701', country: 'USA', active: true },
      ],
    })
    expect(company).toMatchObject({
      id: 'c-1',
      name: 'Acme',
      legal_name: 'Acme, LLC',
      address: {
        address1: '1 Main',
        city: 'Austin',
        region_code: 'TX',
        postal_code: '78701',
        country: 'USA',
      },
    })
    expect(
      fromGustoLocation({
        uuid: 'l',
        street_1: '1 Main',
        city: 'Austin',
        active: false,
        phone_number: '5125550100',
      }),
    ).toMatchObject({
      id: 'l',
      name: '1 Main, Austin',
      is_active: false,
      telephones: [{ telephone: '5125550100', type: 'WORK' }],
    })
    expect(
      fromGustoDepartment({ uuid: 'd', title: 'Ops', employees: [{ uuid: 'a' }, { uuid: 'b' }] }),
    ).toMatchObject({
      id: 'd',
      name: 'Ops',
      type: 'DEPARTMENT',
      user_ids: ['a', 'b'],
    })
  })
})

describe('Gusto payslips, benefits and deductions', () => {
  it('map an employee compensation of a processed payroll onto a payslip with typed lines', () => {
    const payroll = {
      payroll_uuid: 'p-1',
      company_uuid: 'c-1',
      processed: true,
      processed_date: '2025-06-10',
      check_date: '2025-06-13',
      created_at: '2025-06-03T10:00:00Z',
      pay_period: { start_date: '2025-05-25', end_date: '2025-06-07' },
    }
    const slip = fromGustoPayslip(payroll, {
      employee_uuid: 'e-1',
      gross_pay: 3200.5,
      net_pay: 2400.25,
      payment_method: 'Direct Deposit',
      fixed_compensations: [{ name: 'Bonus', amount: '200.00' }],
      hourly_compensations: [
        { name: 'Regular Hours', hours: '80.000', amount: '3000.50' },
        { name: 'Overtime', hours: '0.000', amount: '0.00' },
      ],
      taxes: [
        { name: 'Federal Income Tax', employer: false, amount: 300 },
        { name: 'CA SDI', employer: false, amount: 20 },
        { name: 'Social Security', employer: true, amount: 198.4 },
        { name: 'Kansas City Earnings Tax', employer: false, amount: 32 },
        { name: 'NY MCTMT', employer: true, amount: 5 },
        { name: 'FUTA', employer: true, amount: 0 },
      ],
      benefits: [
        { name: 'Delta Dental', employee_deduction: 25, company_contribution: 10 },
        { name: 'Life Insurance', employee_deduction: 0, company_contribution: 12 },
      ],
      deductions: [{ name: 'Child support', amount: 150 }],
      reimbursements: [{ amount: '40.00', description: null }],
    })
    expect(slip).toMatchObject({
      id: 'p-1:e-1',
      user_id: 'e-1',
      company_id: 'c-1',
      start_at: new Date('2025-05-25T00:00:00Z'),
      end_at: new Date('2025-06-07T00:00:00Z'),
      paid_at: new Date('2025-06-13T00:00:00Z'),
      updated_at: new Date('2025-06-10T00:00:00Z'),
      gross_amount: 3200.5,
      net_amount: 2400.25,
      currency: 'USD',
      payment_type: 'DIRECT',
    })
    expect(slip.details).toEqual([
      { name: 'Bonus', amount: 200, type: 'EARNING_BONUS' },
      { name: 'Regular Hours', amount: 3000.5, type: 'EARNING_SALARY' },
      { name: 'Reimbursement', amount: 40, type: 'REIMBURSEMENT' },
      { name: 'Federal Income Tax', amount: 300, type: 'TAX_FEDERAL', employee_amount: 300 },
      { name: 'CA SDI', amount: 20, type: 'TAX_REGION', employee_amount: 20 },
      // The employer's share is `company_amount` only: `amount` is what left the employee's pay.
      { name: 'Social Security', amount: 0, type: 'TAX_FEDERAL', company_amount: 198.4 },
      { name: 'Kansas City Earnings Tax', amount: 32, type: 'TAX_LOCAL', employee_amount: 32 },
      // Neither plainly state nor local by its name: no type rather than a wrong one.
      { name: 'NY MCTMT', amount: 0, company_amount: 5 },
      { name: 'Delta Dental', amount: 25, employee_amount: 25, company_amount: 10 },
      { name: 'Life Insurance', amount: 0, company_amount: 12 },
      { name: 'Child support', amount: 150 },
    ])
    const taxes = (slip.details as { type?: string; amount: number }[]).filter((d) =>
      d.type?.startsWith('TAX_'),
    )
    expect(taxes.reduce((n, d) => n + d.amount, 0)).toBe(352)
    expect(parsePayslipId('p-1:e-1')).toEqual({ payroll: 'p-1', employee: 'e-1' })
    expect(parsePayslipId('p-1')).toBeUndefined()
  })

  it('type benefits by Gusto benefit type, and map enrollments and garnishments as deductions', () => {
    expect(
      fromGustoCompanyBenefit({ uuid: 'b', benefit_type: 105, description: 'Roth', active: true }),
    ).toMatchObject({
      type: 'RETIREMENT',
      tax: 'POST_TAX',
      name: 'Roth',
    })
    expect(fromGustoCompanyBenefit({ uuid: 'b', benefit_type: 4242 }).type).toBeUndefined()
    expect(
      fromGustoEmployeeBenefit(
        {
          uuid: 'eb',
          employee_uuid: 'e',
          company_benefit_uuid: 'b',
          employee_deduction: '5.00',
          deduct_as_percentage: true,
          active: true,
          effective_date: '2025-01-01',
          expiration_date: null,
        },
        'c',
      ),
    ).toMatchObject({
      id: 'eb',
      user_id: 'e',
      benefit_id: 'b',
      amount: 5,
      type: 'PERCENTAGE',
      start_at: new Date('2025-01-01T00:00:00Z'),
    })
    expect(
      fromGustoGarnishment(
        {
          uuid: 'g',
          employee_uuid: 'e',
          amount: '150.00',
          recurring: false,
          times: 1,
          deduct_as_percentage: false,
        },
        'c',
      ),
    ).toMatchObject({ id: 'g', amount: 150, type: 'FIXED', frequency: 'ONE_TIME' })
    expect(money('12.5')).toBe(12.5)
    expect(money('n/a')).toBeUndefined()
  })
})
